// The in-flight cap of the confirm publisher: at most `max` publishes await confirms; more wait for a
// slot until their deadline. With quorum lost the broker answers nothing at all, and without a cap a
// publisher would buffer without bound.
import { sleep } from "./sleep.ts";

export interface ConfirmWindow {
  /** Takes a slot, waiting until `deadline` (epoch ms) for one; false when none freed in time. */
  acquire(deadline: number): Promise<boolean>;
  release(): void;
  size(): number;
}

export function createConfirmWindow(max: number, onWindow?: (n: number) => void): ConfirmWindow {
  let inFlight = 0;
  let waiters: (() => void)[] = [];
  const set = (n: number) => {
    inFlight = n;
    onWindow?.(n);
    if (inFlight < max && waiters.length > 0) {
      const ws = waiters;
      waiters = [];
      for (const w of ws) w();
    }
  };
  return {
    async acquire(deadline) {
      while (inFlight >= max) {
        const left = deadline - Date.now();
        if (left <= 0) return false;
        await Promise.race([new Promise<void>((r) => waiters.push(r)), sleep(left)]);
      }
      set(inFlight + 1);
      return true;
    },
    release: () => set(inFlight - 1),
    size: () => inFlight,
  };
}

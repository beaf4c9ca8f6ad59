import type { Logger } from "@orderflow/logging";

/** Runs `fn` every `intervalMs` (never overlapping itself); `stop()` waits for the run in progress. */
export function periodic(name: string, intervalMs: number, fn: () => Promise<unknown>, log: Logger) {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    current = fn()
      .catch((e) => log.error({ error: (e as Error).message }, `${name}.error`))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, intervalMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}

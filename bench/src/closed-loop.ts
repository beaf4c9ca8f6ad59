// A closed-loop driver: `concurrency` workers each run `op` back to back until `count` ops are done.
// Throughput is ops / wall time; per-op latencies come along for the distribution.
import { latency } from "./stats.ts";

export async function closedLoop(op: () => Promise<void>, opts: { count: number; concurrency: number }) {
  let started = 0;
  let errors = 0;
  let firstError: string | undefined;
  const lat: number[] = [];
  const t0 = performance.now();
  const worker = async () => {
    while (started < opts.count) {
      started++;
      const s = performance.now();
      try {
        await op();
        lat.push(performance.now() - s);
      } catch (e) {
        errors++;
        firstError ??= (e as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  return {
    ops: lat.length,
    errors,
    firstError,
    seconds,
    opsPerSec: lat.length / seconds,
    latencyMs: latency(lat),
  };
}

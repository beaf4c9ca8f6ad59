// A closed-loop driver: `concurrency` workers each run `op` back to back until `count` ops are done or
// `maxMs` has passed (whichever comes first: a busy shared machine must not stretch the run without
// bound). Throughput is completed ops / wall time; per-op latencies come along for the distribution.
import { latency } from "./stats.ts";

export async function closedLoop(
  op: () => Promise<void>,
  opts: { count: number; concurrency: number; maxMs?: number },
) {
  let started = 0;
  let errors = 0;
  let firstError: string | undefined;
  const lat: number[] = [];
  const t0 = performance.now();
  const deadline = t0 + (opts.maxMs ?? Number.POSITIVE_INFINITY);
  const worker = async () => {
    while (started < opts.count && performance.now() < deadline) {
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

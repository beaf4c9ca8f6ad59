// Open-model pacing: request i is due at i / rate seconds after the start, whatever the answers do, so a
// slow system under test shows as latency and drops, never as less offered load.

/** When request `i` is due, in ms after the start. */
export const intendedAtMs = (i: number, rate: number): number => (i * 1000) / rate;

/**
 * How many of `total` requests are due `elapsedMs` after the start (request 0 is due at 0). The sender
 * sends every due request at once, then sleeps until the next is due: a late timer never costs load.
 */
export function dueBy(elapsedMs: number, rate: number, total: number): number {
  if (elapsedMs < 0 || total <= 0 || !(rate > 0)) return 0;
  return Math.min(total, Math.floor((elapsedMs * rate) / 1000 + 1e-9) + 1);
}

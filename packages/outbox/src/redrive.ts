import type pg from "pg";
import { silentLog } from "./log.ts";
import type { OutboxMetrics } from "./metrics.ts";
import { type RedriveFilter, redriveFailed } from "./sql/redrive.ts";
import type { Log } from "./types.ts";

/**
 * Puts failed (9) rows back to pending with a fresh attempt budget, e.g. after the missing binding was
 * added. Without a filter: every failed row. Returns the message ids redriven. A running relay picks
 * them up on its next sweep.
 */
export async function redrive(
  pool: pg.Pool,
  filter: RedriveFilter = {},
  deps: { log?: Log; metrics?: OutboxMetrics } = {},
): Promise<string[]> {
  const ids = await redriveFailed(pool, filter);
  deps.metrics?.redriven.inc(ids.length);
  (deps.log ?? silentLog)("info", "outbox.redriven", { count: ids.length, messageIds: ids.slice(0, 100) });
  return ids;
}

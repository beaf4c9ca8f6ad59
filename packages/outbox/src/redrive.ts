import { type Logger, silentLogger } from "@orderflow/logging";
import type pg from "pg";
import type { OutboxMetrics } from "./metrics.ts";
import { type RedriveFilter, redriveFailed } from "./sql/redrive.ts";

/**
 * Puts failed (9) rows back to pending with a fresh attempt budget, e.g. after the missing binding was
 * added. Without a filter: every failed row. Returns the message ids redriven. A running relay picks
 * them up on its next sweep.
 */
export async function redrive(
  pool: pg.Pool,
  filter: RedriveFilter = {},
  deps: { log?: Logger; metrics?: OutboxMetrics } = {},
): Promise<string[]> {
  const ids = await redriveFailed(pool, filter);
  deps.metrics?.redriven.inc(ids.length);
  (deps.log ?? silentLogger).info({ count: ids.length, messageIds: ids.slice(0, 100) }, "outbox.redriven");
  return ids;
}

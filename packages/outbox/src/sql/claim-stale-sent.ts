import type pg from "pg";
import type { ClaimedRow } from "../types.ts";
import { byId, CLAIMED_COLUMNS, type ClaimedRecord, toClaimedRow } from "./row.ts";

// Reconciliation's claim: sent rows with no reply after the threshold. Moving sent_at forward is the
// lease (another reconciler skips them) and restarts the clock, so a row is republished at most once
// per threshold. `age_ms` is measured from the first send.
const SQL = `
UPDATE outbox o SET sent_at = now(), republished = o.republished + 1
  FROM (SELECT id, sent_at FROM outbox
         WHERE status = 1 AND sent_at < now() - make_interval(secs => $1::double precision / 1000)
         ORDER BY sent_at
         LIMIT $2
         FOR UPDATE SKIP LOCKED) stale
 WHERE o.id = stale.id
RETURNING ${CLAIMED_COLUMNS}, (extract(epoch FROM now() - o.created_at) * 1000)::float8 AS age_ms`;

export async function claimStaleSent(
  pool: pg.Pool,
  olderThanMs: number,
  limit: number,
): Promise<(ClaimedRow & { ageMs: number })[]> {
  const r = await pool.query<ClaimedRecord & { age_ms: number }>(SQL, [olderThanMs, limit]);
  return r.rows.map((x) => ({ ...toClaimedRow(x), ageMs: x.age_ms })).sort(byId);
}

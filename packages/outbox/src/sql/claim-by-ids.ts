import { preparedQuery } from "@orderflow/db";
import type pg from "pg";
import type { ClaimedRow } from "../types.ts";
import { byId, CLAIMED_COLUMNS, type ClaimedRecord, toClaimedRow } from "./row.ts";

// The fast path's claim: the same lease as claimDue, restricted to one transaction's rows. Whichever of
// fast path and sweep leases a row first publishes it; the other sees it as not due and skips it.
const SQL = `
UPDATE outbox o SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
  FROM (SELECT id FROM outbox
         WHERE message_id = ANY($1::uuid[]) AND status = 0 AND next_attempt_at <= now()
         ORDER BY id
         FOR UPDATE SKIP LOCKED) due
 WHERE o.id = due.id
RETURNING ${CLAIMED_COLUMNS}`;

export async function claimByIds(
  pool: pg.Pool,
  messageIds: string[],
  leaseMs: number,
): Promise<ClaimedRow[]> {
  if (messageIds.length === 0) return [];
  const r = await pool.query<ClaimedRecord>(preparedQuery(SQL, [messageIds, leaseMs]));
  return r.rows.map(toClaimedRow).sort(byId);
}

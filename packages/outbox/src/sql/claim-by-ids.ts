import { preparedQuery } from "@orderflow/db";
import type pg from "pg";
import type { ClaimedRow } from "../types.ts";
import { byId, CLAIMED_COLUMNS, type ClaimedRecord, HEAD_OF_ITS_STREAM, toClaimedRow } from "./row.ts";

// The fast path's claim: the same lease as claimDue, restricted to one transaction's rows. Whichever of
// fast path and sweep leases a row first publishes it; the other sees it as not due and skips it. A row
// of an ordered stream behind an open one is left to the sweep, which takes it once its turn comes.
const SQL = `
UPDATE outbox o SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
  FROM (SELECT c.id FROM outbox c
         WHERE c.message_id = ANY($1::uuid[]) AND c.status = 0 AND c.next_attempt_at <= now()
           AND ${HEAD_OF_ITS_STREAM}
         ORDER BY c.id
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

import { preparedQuery } from "@orderflow/db";
import type pg from "pg";
import type { ClaimedRow } from "../types.ts";
import { byId, CLAIMED_COLUMNS, type ClaimedRecord, HEAD_OF_ITS_STREAM, toClaimedRow } from "./row.ts";

// A claim is a lease: the row stays pending but its next_attempt_at moves past the lease, so no other
// claimer (fast path, sweep, another relay process) sees it as due. SKIP LOCKED keeps concurrent claimers
// from waiting on each other; under READ COMMITTED a row whose lease was committed meanwhile is re-checked
// and skipped. If the claimer dies, the lease expires and the row is published again: a duplicate, never a loss.
const SQL = `
UPDATE outbox o SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
  FROM (SELECT c.id FROM outbox c
         WHERE c.status = 0 AND c.next_attempt_at <= now() AND ${HEAD_OF_ITS_STREAM}
         ORDER BY c.next_attempt_at, c.id
         LIMIT $1
         FOR UPDATE SKIP LOCKED) due
 WHERE o.id = due.id
RETURNING ${CLAIMED_COLUMNS}`;

/** Leases up to `limit` due pending rows for `leaseMs`. */
export async function claimDue(pool: pg.Pool, limit: number, leaseMs: number): Promise<ClaimedRow[]> {
  const r = await pool.query<ClaimedRecord>(preparedQuery(SQL, [limit, leaseMs]));
  return r.rows.map(toClaimedRow).sort(byId);
}

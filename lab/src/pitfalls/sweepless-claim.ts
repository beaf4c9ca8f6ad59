// Pitfall no-relay-sweep: only the publish right after the commit, no scanning fallback behind it. In
// this codebase a service's HTTP writes leave through the fast path (claim by id), and a consumer's
// replies through the sweep it wakes at once; the naive relay keeps both "right after the commit" parts
// and drops the fallback: its woken claim takes only rows committed in the last two seconds. A row whose
// moment passed (the process died right after the commit, the broker node died under its publish and the
// row was released) is never looked at again: it stays pending forever.
// Compare packages/outbox/src/sql/claim-due.ts, the sweep that takes every due row (the fallback behind the fast path).
import {
  CLAIMED_COLUMNS,
  type ClaimedRecord,
  type ClaimStrategy,
  leasedClaim,
  toClaimedRow,
} from "@orderflow/outbox";

const JUST_COMMITTED = `
UPDATE outbox o SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
  FROM (SELECT id FROM outbox
         WHERE status = 0 AND next_attempt_at <= now() AND created_at > now() - interval '2 seconds'
         ORDER BY next_attempt_at, id
         LIMIT $1
         FOR UPDATE SKIP LOCKED) due
 WHERE o.id = due.id
RETURNING ${CLAIMED_COLUMNS}`;

export const sweeplessClaim: ClaimStrategy = {
  due: async (pool, limit, leaseMs) =>
    (await pool.query<ClaimedRecord>(JUST_COMMITTED, [limit, leaseMs])).rows.map(toClaimedRow),
  byIds: leasedClaim.byIds,
};

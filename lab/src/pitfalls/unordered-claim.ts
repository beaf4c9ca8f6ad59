// Pitfall no-ordering, the relay's half: the claim without the head-of-stream rule, as a relay that knows
// nothing of ordered streams is written. Every due row goes, whatever older row of its key is still in
// flight or in backoff, so two relays, or a retried row and the rows behind it, publish one key's rows in
// any order. Compare packages/outbox/src/sql/row.ts (HEAD_OF_ITS_STREAM) and claim-due.ts.
import { CLAIMED_COLUMNS, type ClaimedRecord, type ClaimStrategy, toClaimedRow } from "@orderflow/outbox";

const lease = (where: string, limit: string) => `
UPDATE outbox o SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
  FROM (SELECT c.id FROM outbox c WHERE ${where} ORDER BY c.next_attempt_at, c.id ${limit}
         FOR UPDATE SKIP LOCKED) due
 WHERE o.id = due.id
RETURNING ${CLAIMED_COLUMNS}`;

const DUE = lease("c.status = 0 AND c.next_attempt_at <= now()", "LIMIT $1");
const BY_IDS = lease("c.message_id = ANY($1::uuid[]) AND c.status = 0 AND c.next_attempt_at <= now()", "");

export const unorderedClaim: ClaimStrategy = {
  due: async (pool, limit, leaseMs) =>
    (await pool.query<ClaimedRecord>(DUE, [limit, leaseMs])).rows.map(toClaimedRow),
  byIds: async (pool, messageIds, leaseMs) =>
    messageIds.length === 0
      ? []
      : (await pool.query<ClaimedRecord>(BY_IDS, [messageIds, leaseMs])).rows.map(toClaimedRow),
};

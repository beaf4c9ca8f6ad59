// Pitfall no-claim-cas: the claim as a naive relay writes it: read the pending rows, no lease, no lock,
// no compare-and-set. Every claimer that reads a row before it is marked publishes it, so the fast path,
// the in-process sweep and the relay process publish the same row several times; the consumers' inboxes
// absorb the copies. Compare packages/outbox/src/sql/claim-due.ts.
import { CLAIMED_COLUMNS, type ClaimedRecord, type ClaimStrategy, toClaimedRow } from "@orderflow/outbox";

const DUE = `SELECT ${CLAIMED_COLUMNS} FROM outbox o
 WHERE status = 0 AND next_attempt_at <= now() ORDER BY id LIMIT $1`;
const BY_IDS = `SELECT ${CLAIMED_COLUMNS} FROM outbox o
 WHERE message_id = ANY($1::uuid[]) AND status = 0 AND next_attempt_at <= now() ORDER BY id`;

export const naiveClaim: ClaimStrategy = {
  due: async (pool, limit) => (await pool.query<ClaimedRecord>(DUE, [limit])).rows.map(toClaimedRow),
  byIds: async (pool, messageIds) =>
    messageIds.length === 0
      ? []
      : (await pool.query<ClaimedRecord>(BY_IDS, [messageIds])).rows.map(toClaimedRow),
};

// The inbox: the truth about which messages a consumer has applied. One SQL operation per function.
import type { RunTransaction, SqlTx } from "@orderflow/db";

/** Where a consumer records what it applied, inside the handler's transaction (a consumer seam). */
export interface Inbox {
  /**
   * Records (consumer, key) inside `tx`. True when this transaction claimed it (apply the effect), false
   * when it was applied before (a duplicate: skip).
   */
  claim(tx: SqlTx, consumer: string, key: string, messageType: string): Promise<boolean>;
}

/**
 * Records (consumer, messageId) inside the caller's transaction. True when this transaction claimed it,
 * false when it was applied before. A concurrent transaction holding the same key makes this wait until
 * that one commits (then false) or rolls back (then true): two racing instances apply an effect once.
 */
export async function claimInbox(
  tx: SqlTx,
  consumer: string,
  messageId: string,
  messageType: string,
): Promise<boolean> {
  const inserted = await tx.$executeRawUnsafe(
    `INSERT INTO inbox (consumer, message_id, message_type) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
    consumer,
    messageId,
    messageType,
  );
  return inserted === 1;
}

/** The consumer's default inbox: the `inbox` table of INBOX_MIGRATIONS_DIR, in the service's database. */
export const sqlInbox: Inbox = { claim: claimInbox };

/** Deletes inbox rows older than retentionMs, batchSize rows per transaction; returns how many. */
export async function cleanupInbox<Tx extends SqlTx>(
  transaction: RunTransaction<Tx>,
  opts: { retentionMs: number; batchSize?: number; maxBatches?: number },
): Promise<number> {
  const batch = opts.batchSize ?? 1_000;
  const maxBatches = opts.maxBatches ?? Number.POSITIVE_INFINITY;
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    // Small batches keep locks and WAL bursts short; the index on received_at finds them.
    const n = await transaction(
      async (tx) =>
        await tx.$executeRawUnsafe(
          `DELETE FROM inbox WHERE (consumer, message_id) IN (
           SELECT consumer, message_id FROM inbox
           WHERE received_at < now() - ($1::bigint * interval '1 millisecond')
           LIMIT $2)`,
          opts.retentionMs,
          batch,
        ),
    );
    total += n;
    if (n < batch) break;
  }
  return total;
}

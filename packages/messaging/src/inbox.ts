// The inbox: the truth about which messages a consumer has applied. One SQL operation per function.
import type { RunTransaction, SqlTx } from "@orderflow/db";

/** Where a consumer records what it applied, inside the handler's transaction (a consumer seam). */
export interface Inbox {
  /**
   * Records (consumer, key) inside `tx`. True when this transaction claimed it (apply the effect), false
   * when it was applied before (a duplicate: skip).
   */
  claim(
    tx: SqlTx,
    consumer: string,
    key: string,
    messageType: string,
    contentHash?: string,
  ): Promise<boolean>;
  /**
   * What was recorded for (consumer, key): undefined when it was never applied. Confirms an early skip's
   * hint before a message is dropped, and tells a redelivery from another message under the same id.
   */
  recorded(tx: SqlTx, consumer: string, key: string): Promise<{ contentHash: string | null } | undefined>;
  /**
   * claim() for a batch in one statement: the keys this transaction claimed. Optional: without it a batch
   * claims key by key.
   */
  claimMany?(tx: SqlTx, consumer: string, entries: readonly InboxEntry[]): Promise<Set<string>>;
  /**
   * An ordered stream's turn, inside `tx`: "apply" when `sequence` is the next one for (consumer, key)
   * (and it is now recorded as applied), "copy" when it was applied before, "early" when a message before
   * it has not been applied yet.
   */
  takeTurn(tx: SqlTx, consumer: string, key: string, sequence: number): Promise<Turn>;
  /**
   * Gives back claims `tx` made for messages it will not apply after all (early ones a batch leaves for
   * later). Optional: without it, an early message splits its batch.
   */
  unclaim?(tx: SqlTx, consumer: string, keys: readonly string[]): Promise<void>;
}

export type Turn = "apply" | "copy" | "early";

export interface InboxEntry {
  key: string;
  messageType: string;
  contentHash?: string;
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
  contentHash?: string,
): Promise<boolean> {
  const inserted = await tx.$executeRawUnsafe(
    `INSERT INTO inbox (consumer, message_id, message_type, content_hash) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING`,
    consumer,
    messageId,
    messageType,
    contentHash ?? null,
  );
  return inserted === 1;
}

/**
 * claimInbox for a batch, as one INSERT: the keys inserted now. Rows go in key order, so two batches
 * claiming overlapping keys wait for each other instead of deadlocking.
 */
export async function claimInboxMany(
  tx: SqlTx,
  consumer: string,
  entries: readonly InboxEntry[],
): Promise<Set<string>> {
  const sorted = [...entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const rows = await tx.$queryRawUnsafe<{ message_id: string }[]>(
    `INSERT INTO inbox (consumer, message_id, message_type, content_hash)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])
     ON CONFLICT DO NOTHING RETURNING message_id`,
    consumer,
    sorted.map((e) => e.key),
    sorted.map((e) => e.messageType),
    sorted.map((e) => e.contentHash ?? null),
  );
  return new Set(rows.map((r) => r.message_id));
}

/** The inbox row of (consumer, messageId), if any. A plain read: it never waits on a claim in flight. */
export async function inboxRecord(
  tx: SqlTx,
  consumer: string,
  messageId: string,
): Promise<{ contentHash: string | null } | undefined> {
  const rows = await tx.$queryRawUnsafe<{ contentHash: string | null }[]>(
    `SELECT content_hash AS "contentHash" FROM inbox WHERE consumer = $1 AND message_id = $2`,
    consumer,
    messageId,
  );
  return rows[0];
}

/**
 * takeTurn on `inbox_sequence`. The UPDATE takes the key's row lock: a second transaction with the same
 * number waits, then finds the row moved on and answers "copy". The first message of a key inserts the row.
 */
export async function takeTurnInbox(
  tx: SqlTx,
  consumer: string,
  key: string,
  sequence: number,
): Promise<Turn> {
  const moved = await tx.$executeRawUnsafe(
    `UPDATE inbox_sequence SET last = $3, applied_at = now()
      WHERE consumer = $1 AND ordering_key = $2 AND last = $3::bigint - 1`,
    consumer,
    key,
    sequence,
  );
  if (moved === 1) return "apply";
  if (sequence === 1) {
    const started = await tx.$executeRawUnsafe(
      `INSERT INTO inbox_sequence (consumer, ordering_key, last) VALUES ($1, $2, 1) ON CONFLICT DO NOTHING`,
      consumer,
      key,
    );
    return started === 1 ? "apply" : "copy";
  }
  const rows = await tx.$queryRawUnsafe<{ last: string }[]>(
    `SELECT last::text FROM inbox_sequence WHERE consumer = $1 AND ordering_key = $2`,
    consumer,
    key,
  );
  const last = rows[0] === undefined ? 0 : Number(rows[0].last);
  return sequence <= last ? "copy" : "early";
}

/** unclaim on `inbox`: only rows `tx` inserted are meant, so no other transaction waits on them. */
export async function unclaimInbox(
  tx: SqlTx,
  consumer: string,
  messageIds: readonly string[],
): Promise<void> {
  await tx.$executeRawUnsafe(
    `DELETE FROM inbox WHERE consumer = $1 AND message_id = ANY($2::text[])`,
    consumer,
    messageIds,
  );
}

/** The consumer's default inbox: the `inbox` and `inbox_sequence` tables of INBOX_MIGRATIONS_DIR. */
export const sqlInbox: Inbox = {
  claim: claimInbox,
  recorded: inboxRecord,
  claimMany: claimInboxMany,
  takeTurn: takeTurnInbox,
  unclaim: unclaimInbox,
};

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

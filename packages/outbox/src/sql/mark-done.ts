import type { SqlTx } from "@orderflow/db";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A reply's request to end the wait of the outbox row it answers. */
export interface DoneMark {
  /** The reply's causation id: the message id of the row it answers. */
  causationId: string;
  /** Narrows the mark to a row of this aggregate (a causation id that cannot be trusted to belong to it). */
  onlyForAggregate?: string | undefined;
}

// A reply may overtake our own mark-sent, so pending rows may go straight to done as well. The rows are
// locked in id order, as the relay's mark-sent and lease release lock theirs, so a batch's marks and a
// concurrent mark-sent of the same rows queue behind each other instead of deadlocking. The two arrays are
// at $first and $first + 1, so the UPDATE can also lead another statement (insertLeasedRows).
export const markDoneSql = (first: number) => `
UPDATE outbox o SET status = 2, done_at = now()
  FROM (SELECT x.id FROM outbox x
          JOIN unnest($${first}::uuid[], $${first + 1}::text[]) AS m(message_id, aggregate_id)
            ON x.message_id = m.message_id
         WHERE x.status IN (0, 1) AND (m.aggregate_id IS NULL OR x.aggregate_id = m.aggregate_id)
         ORDER BY x.id
           FOR UPDATE OF x) AS t
 WHERE o.id = t.id AND o.status IN (0, 1)`;

const SQL = markDoneSql(1);

/** The marks' two parameter arrays; marks whose causation id is no uuid are dropped (they match no row). */
export function markColumns(marks: readonly DoneMark[]): [string[], (string | null)[]] | undefined {
  const valid = marks.filter((m) => UUID.test(m.causationId));
  if (valid.length === 0) return undefined;
  return [valid.map((m) => m.causationId), valid.map((m) => m.onlyForAggregate ?? null)];
}

/**
 * Marks the outbox rows whose message ids replies carry as their causation ids, in one statement. Runs
 * inside the consumer's transaction (Prisma `tx` or pgTransaction) so the marks commit with the replies'
 * own effects. Returns how many rows changed: unknown, foreign or already-done ids change none.
 */
export async function markDoneMany(tx: SqlTx, marks: readonly DoneMark[]): Promise<number> {
  const columns = markColumns(marks);
  return columns ? await tx.$executeRawUnsafe(SQL, ...columns) : 0;
}

/**
 * Marks the outbox row whose message id a downstream reply carries as its causation id. Returns 1 when a
 * row changed, 0 for an unknown, foreign or already-done id. `onlyForAggregate` narrows it to a row of
 * that aggregate, for replies whose causation id cannot be trusted to belong to their subject.
 */
export async function markDone(tx: SqlTx, causationId: string, onlyForAggregate?: string): Promise<number> {
  return await markDoneMany(tx, [{ causationId, onlyForAggregate }]);
}

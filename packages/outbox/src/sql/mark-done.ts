import type { SqlTx } from "@orderflow/db";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// A reply may overtake our own mark-sent, so pending rows may go straight to done as well.
const SQL = `
UPDATE outbox SET status = 2, done_at = now()
 WHERE message_id = $1::uuid AND status IN (0, 1) AND ($2::text IS NULL OR aggregate_id = $2::text)`;

/**
 * Marks the outbox row whose message id a downstream reply carries as its causation id. Runs inside the
 * consumer's transaction (Prisma `tx` or pgTransaction) so it commits with the reply's own effects.
 * Returns 1 when a row changed, 0 for an unknown, foreign or already-done id. `onlyForAggregate` narrows it
 * to a row of that aggregate, for replies whose causation id cannot be trusted to belong to their subject.
 */
export async function markDone(tx: SqlTx, causationId: string, onlyForAggregate?: string): Promise<number> {
  if (!UUID.test(causationId)) return 0;
  return await tx.$executeRawUnsafe(SQL, causationId, onlyForAggregate ?? null);
}

// Puts an event's outbox row back to pending, so the relay publishes it again under its ORIGINAL message
// id: consumers that applied it skip it (inbox), those that never got it apply it. Used by
// reconciliation and by the replay-reply endpoints.
import type { SqlTx } from "@orderflow/db";

export async function resendOutboxMessage(sql: SqlTx, messageId: string): Promise<boolean> {
  const n = await sql.$executeRawUnsafe(
    `UPDATE outbox SET status = 0, next_attempt_at = now(), attempts = 0, last_error = NULL
      WHERE message_id = $1::uuid AND status <> 0`,
    messageId,
  );
  return n > 0;
}

// Puts an event's outbox row back to pending, so the relay publishes it again under its ORIGINAL message
// id: consumers that applied it skip it (inbox), those that never got it apply it. For reconciliation and
// replay-reply endpoints; unlike `redrive` (failed rows only) it takes a row in any state but pending.
import type { SqlTx } from "@orderflow/db";

/** In the caller's transaction; true when the row existed and was not already pending. */
export async function resendMessage(sql: SqlTx, messageId: string): Promise<boolean> {
  const n = await sql.$executeRawUnsafe(
    `UPDATE outbox SET status = 0, next_attempt_at = now(), attempts = 0, last_error = NULL
      WHERE message_id = $1::uuid AND status <> 0`,
    messageId,
  );
  return n > 0;
}

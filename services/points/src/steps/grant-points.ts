// order.confirmed -> credit the customer once, and answer points.granted. The grant row is the state
// guard: a grant already made, or a REVERSED tombstone left by a cancellation that came first, grants
// nothing again but still answers: with the points granted (the order service records the answer as the
// order's points, so it must repeat them), or 0 for the tombstone.
import { pointsFor } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import { replyTo, type Step } from "@orderflow/service-runtime";

/**
 * The grant and the credit in one statement: the grant row goes in first with ON CONFLICT DO NOTHING
 * (waiting for a concurrent writer of the same order), and the account is credited only with what went
 * in. Returns whether this call granted.
 */
async function grantOnce(
  tx: SqlTx,
  g: { orderId: string; customerId: string; points: number; replyMessageId: string },
): Promise<boolean> {
  const rows = await tx.$queryRaw<{ granted: number }[]>`
    WITH g AS (
      INSERT INTO grants (order_id, customer_id, points, status, reply_message_id)
      VALUES (${g.orderId}, ${g.customerId}, ${g.points}, 'GRANTED', ${g.replyMessageId}::uuid)
      ON CONFLICT (order_id) DO NOTHING
      RETURNING customer_id, points
    ), a AS (
      INSERT INTO accounts (customer_id, balance) SELECT customer_id, points FROM g
      ON CONFLICT (customer_id)
      DO UPDATE SET balance = accounts.balance + EXCLUDED.balance, updated_at = now()
    )
    SELECT count(*)::int AS granted FROM g`;
  return rows[0]?.granted === 1;
}

/** The grant already there, locked by the update that records the new reply; what the answer repeats. */
async function repeatGrant(tx: SqlTx, orderId: string, replyMessageId: string): Promise<number> {
  const rows = await tx.$queryRaw<{ status: string; points: number }[]>`
    UPDATE grants SET reply_message_id = ${replyMessageId}::uuid, updated_at = now()
     WHERE order_id = ${orderId}
    RETURNING status, points`;
  const existing = rows[0];
  if (!existing) throw new Error(`grant ${orderId} conflicted on insert but is not there`);
  return existing.status === "GRANTED" ? existing.points : 0;
}

export const grantPoints: Step<"order.confirmed", SqlTx> = async (event, { tx, enqueue }) => {
  const { orderId, customerId, total } = event.payload;
  const reply = replyTo(event);
  const fresh = { orderId, customerId, points: pointsFor(total), replyMessageId: reply.messageId };
  const points = (await grantOnce(tx, fresh))
    ? fresh.points
    : await repeatGrant(tx, orderId, reply.messageId);
  await enqueue({
    eventType: "points.granted",
    aggregateType: "grant",
    aggregateId: orderId,
    payload: { orderId, customerId, points },
    ...reply,
  });
};

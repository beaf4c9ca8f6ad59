// order.confirmed -> credit the customer once, and answer points.granted. The grant row is the state
// guard: a grant already made, or a REVERSED tombstone left by a cancellation that came first, grants
// nothing again but still answers: with the points granted (the order service records the answer as the
// order's points, so it must repeat them), or 0 for the tombstone.
import { pointsFor } from "@orderflow/contracts";
import { replyTo, type Step } from "@orderflow/service-runtime";
import type { Tx } from "../db.ts";
import { lockGrant } from "./lock-grant.ts";

export const grantPoints: Step<"order.confirmed", Tx> = async (event, { tx, enqueue }) => {
  const { orderId, customerId, total } = event.payload;
  const existing = await lockGrant(tx, orderId);
  const reply = replyTo(event);
  const points = existing ? (existing.status === "GRANTED" ? existing.points : 0) : pointsFor(total);
  if (existing) {
    await tx.grant.update({ where: { orderId }, data: { replyMessageId: reply.messageId } });
  } else {
    await tx.$executeRawUnsafe(
      `INSERT INTO accounts (customer_id, balance) VALUES ($1, $2)
       ON CONFLICT (customer_id) DO UPDATE SET balance = accounts.balance + EXCLUDED.balance, updated_at = now()`,
      customerId,
      points,
    );
    await tx.grant.create({
      data: { orderId, customerId, points, status: "GRANTED", replyMessageId: reply.messageId },
    });
  }
  await enqueue({
    eventType: "points.granted",
    aggregateType: "grant",
    aggregateId: orderId,
    payload: { orderId, customerId, points },
    ...reply,
  });
};

// order.cancelled -> take back what was granted, once, and answer points.reversed. It answers also when
// nothing was granted: that reply is the acknowledgement the order service waits for, and the REVERSED
// tombstone it leaves makes a late order.confirmed grant nothing.
import { replyTo, type Step } from "@orderflow/service-runtime";
import type { Tx } from "../db.ts";
import { lockGrant } from "./lock-grant.ts";

export const reversePoints: Step<"order.cancelled", Tx> = async (event, { tx, enqueue }) => {
  const { orderId, customerId } = event.payload;
  const existing = await lockGrant(tx, orderId);
  const reply = replyTo(event);
  let reversed = 0;
  if (existing?.status === "GRANTED") {
    reversed = existing.points;
    await tx.$executeRawUnsafe(
      `UPDATE accounts SET balance = balance - $2, updated_at = now() WHERE customer_id = $1`,
      existing.customer_id,
      reversed,
    );
  }
  await tx.grant.upsert({
    where: { orderId },
    create: { orderId, customerId, points: 0, status: "REVERSED", replyMessageId: reply.messageId },
    update: { status: "REVERSED", replyMessageId: reply.messageId },
  });
  await enqueue({
    eventType: "points.reversed",
    aggregateType: "grant",
    aggregateId: orderId,
    payload: { orderId, customerId, points: reversed },
    ...reply,
  });
};

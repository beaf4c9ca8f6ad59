// order.cancelled -> give back what was reserved, and answer inventory.released. It answers also when
// nothing was reserved: that reply is the acknowledgement the order service waits for.
import { replyTo, type Step } from "@orderflow/service-runtime";
import type { Tx } from "../db.ts";

export const releaseStock: Step<"order.cancelled", Tx> = async (event, { tx, enqueue }) => {
  const { orderId } = event.payload;
  const locked = await tx.$queryRawUnsafe<{ status: string; lines: { sku: string; quantity: number }[] }[]>(
    `SELECT status, lines FROM reservations WHERE order_id = $1 FOR UPDATE`,
    orderId,
  );
  const current = locked[0];
  const reply = replyTo(event);
  if (current?.status === "RESERVED") {
    for (const l of current.lines) {
      await tx.$executeRawUnsafe(
        `UPDATE stock SET available = available + $2, reserved = reserved - $2, updated_at = now() WHERE sku = $1`,
        l.sku,
        l.quantity,
      );
    }
  }
  // RELEASED also when nothing was reserved: a late order.created for this order then reserves nothing.
  await tx.reservation.upsert({
    where: { orderId },
    create: { orderId, status: "RELEASED", reason: event.payload.reason, replyMessageId: reply.messageId },
    update: {
      status: current?.status === "RESERVED" ? "RELEASED" : (current?.status ?? "RELEASED"),
      replyMessageId: reply.messageId,
    },
  });
  await enqueue({
    eventType: "inventory.released",
    aggregateType: "reservation",
    aggregateId: orderId,
    payload: { orderId },
    ...reply,
  });
};

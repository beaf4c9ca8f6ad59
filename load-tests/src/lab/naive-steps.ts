// Pitfall no-consumer-dedup, the steps' half: steps with no state guard, as a consumer written without
// redelivery in mind would apply them. A redelivered order.created reserves again, a redelivered
// order.confirmed grants again. Compare services/inventory/src/steps/reserve-stock.ts and
// services/points/src/steps/grant-points.ts, whose first lines are the guard removed here.
import { pointsFor } from "@orderflow/contracts";
import { findShortage, type Tx as InventoryTx, unitsBySku } from "@orderflow/inventory";
import type { Tx as PointsTx } from "@orderflow/points";
import { replyTo, type Step } from "@orderflow/service-runtime";

export const reserveStockUnguarded: Step<"order.created", InventoryTx> = async (event, { tx, enqueue }) => {
  const { orderId } = event.payload;
  const wanted = unitsBySku(event.payload.lines);
  const reply = replyTo(event);
  const answer = { aggregateType: "reservation", aggregateId: orderId, ...reply };
  const shortage = await findShortage(tx, wanted);
  if (shortage) {
    const rejected = {
      status: "REJECTED" as const,
      reason: shortage.reason,
      replyMessageId: reply.messageId,
    };
    await tx.reservation.upsert({ where: { orderId }, create: { orderId, ...rejected }, update: rejected });
    await enqueue({ ...answer, eventType: "inventory.rejected", payload: { orderId, ...shortage } });
    return { rejected: shortage.reason };
  }
  for (const w of wanted)
    await tx.$executeRawUnsafe(
      `UPDATE stock SET available = available - $2, reserved = reserved + $2 WHERE sku = $1`,
      w.sku,
      w.quantity,
    );
  const reserved = { status: "RESERVED" as const, lines: wanted, replyMessageId: reply.messageId };
  await tx.reservation.upsert({ where: { orderId }, create: { orderId, ...reserved }, update: reserved });
  await enqueue({ ...answer, eventType: "inventory.reserved", payload: { orderId, lines: wanted } });
  return undefined;
};

export const grantPointsUnguarded: Step<"order.confirmed", PointsTx> = async (event, { tx, enqueue }) => {
  const { orderId, customerId, total } = event.payload;
  const points = pointsFor(total);
  const reply = replyTo(event);
  await tx.$executeRawUnsafe(
    `INSERT INTO accounts (customer_id, balance) VALUES ($1, $2)
     ON CONFLICT (customer_id) DO UPDATE SET balance = accounts.balance + EXCLUDED.balance`,
    customerId,
    points,
  );
  const granted = { customerId, points, status: "GRANTED" as const, replyMessageId: reply.messageId };
  await tx.grant.upsert({ where: { orderId }, create: { orderId, ...granted }, update: granted });
  await enqueue({
    eventType: "points.granted",
    aggregateType: "grant",
    aggregateId: orderId,
    payload: { orderId, customerId, points },
    ...reply,
  });
};

// Pitfall no-consumer-dedup, the steps' half: steps with no state guard, as a consumer written without
// redelivery in mind would apply them. A redelivered order.created reserves again, a redelivered
// inventory.reserved grants again. Compare services/inventory/src/steps/reserve-stock.ts and
// services/points/src/steps/grant-points.ts, whose first lines are the guard removed here.
import { grantableReservation, pointsFor } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import { findShortage, unitsBySku } from "@orderflow/inventory";
import { replyTo, type Step } from "@orderflow/service-runtime";

/** The reservation row written over whatever was there: no guard. */
const overwriteReservation = (
  tx: SqlTx,
  orderId: string,
  r: { status: "RESERVED" | "REJECTED"; reason?: string; lines?: unknown; replyMessageId: string },
) =>
  tx.$executeRaw`
    INSERT INTO reservations (order_id, status, reason, lines, reply_message_id)
    VALUES (${orderId}, ${r.status}, ${r.reason ?? null}, ${JSON.stringify(r.lines ?? [])}::jsonb,
            ${r.replyMessageId}::uuid)
    ON CONFLICT (order_id) DO UPDATE SET status = EXCLUDED.status, reason = EXCLUDED.reason,
      lines = EXCLUDED.lines, reply_message_id = EXCLUDED.reply_message_id, updated_at = now()`;

export const reserveStockUnguarded: Step<"order.created", SqlTx> = async (event, { tx, enqueue }) => {
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
    await overwriteReservation(tx, orderId, rejected);
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
  await overwriteReservation(tx, orderId, reserved);
  const { customerId, total } = event.payload;
  await enqueue({
    ...answer,
    eventType: "inventory.reserved",
    payload: { orderId, lines: wanted, customerId, total },
  });
  return undefined;
};

export const grantPointsUnguarded: Step<"inventory.reserved", SqlTx> = async (event, { tx, enqueue }) => {
  const asked = grantableReservation(event.payload);
  if (!asked) return undefined;
  const { orderId, customerId, total } = asked;
  const points = pointsFor(total);
  const reply = replyTo(event);
  await tx.$executeRawUnsafe(
    `INSERT INTO accounts (customer_id, balance) VALUES ($1, $2)
     ON CONFLICT (customer_id) DO UPDATE SET balance = accounts.balance + EXCLUDED.balance`,
    customerId,
    points,
  );
  await tx.$executeRaw`
    INSERT INTO grants (order_id, customer_id, points, status, reply_message_id)
    VALUES (${orderId}, ${customerId}, ${points}::int, 'GRANTED', ${reply.messageId}::uuid)
    ON CONFLICT (order_id) DO UPDATE SET customer_id = EXCLUDED.customer_id, points = EXCLUDED.points,
      status = 'GRANTED', reply_message_id = EXCLUDED.reply_message_id, updated_at = now()`;
  await enqueue({
    eventType: "points.granted",
    aggregateType: "grant",
    aggregateId: orderId,
    payload: { orderId, customerId, points },
    ...reply,
  });
};

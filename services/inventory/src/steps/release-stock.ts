// order.cancelled -> give back what was reserved, and answer inventory.released. It answers also when
// nothing was reserved: that reply is the acknowledgement the order service waits for. Stock given back
// also writes each SKU's new level (inventory.stock-changed).

import type { SqlTx } from "@orderflow/db";
import { replyTo, type Step } from "@orderflow/service-runtime";
import { publishLevels, type StockLevel } from "./stock-changed.ts";

type Lines = { sku: string; quantity: number }[];

/**
 * The order's reservation, locked; when it holds stock, its stock rows are locked too, in SKU order like
 * every reservation takes them (a multi-row UPDATE would lock them in whatever order its join runs, and
 * could deadlock with a reservation of the same SKUs).
 */
async function lockReservation(tx: SqlTx, orderId: string) {
  const rows = await tx.$queryRaw<{ status: string; lines: Lines; locked: number }[]>`
    WITH r AS MATERIALIZED (
      SELECT status, lines FROM reservations WHERE order_id = ${orderId} FOR UPDATE
    ), s AS MATERIALIZED (
      SELECT sku FROM stock
       WHERE sku IN (SELECT l.sku FROM r, jsonb_to_recordset(r.lines) AS l(sku text)
                      WHERE r.status = 'RESERVED')
       ORDER BY sku FOR UPDATE
    )
    SELECT r.status, r.lines, (SELECT count(*) FROM s)::int AS locked FROM r`;
  return rows[0];
}

export const releaseStock: Step<"order.cancelled", SqlTx> = async (event, { tx, enqueue }) => {
  const { orderId } = event.payload;
  const current = await lockReservation(tx, orderId);
  const reply = replyTo(event);
  if (current?.status === "RESERVED") {
    const { lines } = current;
    const levels = await tx.$queryRaw<StockLevel[]>`
      WITH r AS (
        UPDATE reservations
           SET status = 'RELEASED', reply_message_id = ${reply.messageId}::uuid, updated_at = now()
         WHERE order_id = ${orderId}
      )
      UPDATE stock
         SET available = available + l.quantity, reserved = reserved - l.quantity, updated_at = now()
        FROM unnest(${lines.map((l) => l.sku)}::text[], ${lines.map((l) => l.quantity)}::int[])
             AS l(sku, quantity)
       WHERE stock.sku = l.sku
       RETURNING stock.sku, stock.available, stock.reserved`;
    await publishLevels(enqueue, levels, reply.correlationId);
  } else {
    // RELEASED also when nothing was reserved: a late order.created for this order then reserves nothing.
    // An order already decided otherwise (REJECTED, RELEASED) keeps its status.
    await tx.$executeRaw`
      INSERT INTO reservations (order_id, status, reason, reply_message_id)
      VALUES (${orderId}, 'RELEASED', ${event.payload.reason}, ${reply.messageId}::uuid)
      ON CONFLICT (order_id) DO UPDATE
        SET status = ${current?.status ?? "RELEASED"}, reply_message_id = EXCLUDED.reply_message_id,
            updated_at = now()`;
  }
  await enqueue({
    eventType: "inventory.released",
    aggregateType: "reservation",
    aggregateId: orderId,
    payload: { orderId },
    ...reply,
  });
};

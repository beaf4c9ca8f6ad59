// Inventory's side of the saga. Each handler runs in the consumer's transaction, after the inbox claim.
import { randomUUID } from "node:crypto";
import type { SqlTx } from "@orderflow/db";
import type { Handler, Handlers } from "@orderflow/messaging";
import { enqueue } from "@orderflow/outbox";
import type { Tx } from "./db.ts";

const prismaOf = (tx: SqlTx): Tx => tx as Tx;

/** Same SKU on several lines counts once, with the quantities added. */
export function unitsBySku(lines: { sku: string; quantity: number }[]): { sku: string; quantity: number }[] {
  const m = new Map<string, number>();
  for (const l of lines) m.set(l.sku, (m.get(l.sku) ?? 0) + l.quantity);
  // Sorted: every transaction locks stock rows in the same order, so two orders cannot deadlock.
  return [...m].map(([sku, quantity]) => ({ sku, quantity })).sort((a, b) => (a.sku < b.sku ? -1 : 1));
}

/** naive: the fault lab's "naive consumer" (no state guard): a redelivered order.created reserves again. */
const reserveWith =
  (naive: boolean): Handler<"order.created"> =>
  async (e, raw) => {
    const tx = prismaOf(raw);
    const { orderId } = e.payload;
    if (!naive && (await tx.reservation.findUnique({ where: { orderId } }))) return; // already decided (or cancelled first)
    const wanted = unitsBySku(e.payload.lines);
    const rows = await tx.$queryRawUnsafe<{ sku: string; available: number }[]>(
      `SELECT sku, available FROM stock WHERE sku = ANY($1::text[]) ORDER BY sku FOR UPDATE`,
      wanted.map((w) => w.sku),
    );
    const available = new Map(rows.map((r) => [r.sku, r.available]));
    const short = wanted.find((w) => (available.get(w.sku) ?? -1) < w.quantity);
    const replyId = randomUUID();
    const reply = {
      correlationId: e.envelope.correlationId,
      causationId: e.envelope.messageId,
      messageId: replyId,
    };
    if (short) {
      const reason = available.has(short.sku)
        ? `insufficient stock for ${short.sku}: ${available.get(short.sku)} available, ${short.quantity} wanted`
        : `unknown SKU ${short.sku}`;
      await tx.reservation.create({ data: { orderId, status: "REJECTED", reason, replyMessageId: replyId } });
      await enqueue(tx, {
        eventType: "inventory.rejected",
        aggregateType: "reservation",
        aggregateId: orderId,
        payload: { orderId, reason, sku: short.sku },
        ...reply,
      });
      return { rejected: reason };
    }
    for (const w of wanted) {
      await tx.$executeRawUnsafe(
        `UPDATE stock SET available = available - $2, reserved = reserved + $2, updated_at = now() WHERE sku = $1`,
        w.sku,
        w.quantity,
      );
    }
    const reserved = { status: "RESERVED" as const, lines: wanted, replyMessageId: replyId };
    if (naive)
      await tx.reservation.upsert({ where: { orderId }, create: { orderId, ...reserved }, update: reserved });
    else await tx.reservation.create({ data: { orderId, ...reserved } });
    await enqueue(tx, {
      eventType: "inventory.reserved",
      aggregateType: "reservation",
      aggregateId: orderId,
      payload: { orderId, lines: wanted },
      ...reply,
    });
    return undefined;
  };

const release: Handler<"order.cancelled"> = async (e, raw) => {
  const tx = prismaOf(raw);
  const { orderId } = e.payload;
  const locked = await tx.$queryRawUnsafe<{ status: string; lines: { sku: string; quantity: number }[] }[]>(
    `SELECT status, lines FROM reservations WHERE order_id = $1 FOR UPDATE`,
    orderId,
  );
  const current = locked[0];
  const replyId = randomUUID();
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
    create: { orderId, status: "RELEASED", reason: e.payload.reason, replyMessageId: replyId },
    update: {
      status: current?.status === "RESERVED" ? "RELEASED" : (current?.status ?? "RELEASED"),
      replyMessageId: replyId,
    },
  });
  await enqueue(tx, {
    eventType: "inventory.released",
    aggregateType: "reservation",
    aggregateId: orderId,
    messageId: replyId,
    payload: { orderId },
    correlationId: e.envelope.correlationId,
    causationId: e.envelope.messageId,
  });
};

export function inventoryHandlers(o: { naive?: boolean } = {}): Handlers {
  return { "order.created": reserveWith(o.naive === true), "order.cancelled": release };
}

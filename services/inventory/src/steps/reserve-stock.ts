// order.created -> reserve every line or none, and answer inventory.reserved or inventory.rejected.
// The reservation row is the state guard: an order already decided (or cancelled before its create
// arrived, which leaves a RELEASED tombstone) reserves nothing again.
import { replyTo, type Step } from "@orderflow/service-runtime";
import type { Tx } from "../db.ts";
import { unitsBySku } from "./units-by-sku.ts";

type Wanted = { sku: string; quantity: number }[];

/** The first line the stock cannot cover, with the reason; undefined when every line fits. */
export async function findShortage(
  tx: Tx,
  wanted: Wanted,
): Promise<{ sku: string; reason: string } | undefined> {
  const rows = await tx.$queryRawUnsafe<{ sku: string; available: number }[]>(
    `SELECT sku, available FROM stock WHERE sku = ANY($1::text[]) ORDER BY sku FOR UPDATE`,
    wanted.map((w) => w.sku),
  );
  const available = new Map(rows.map((r) => [r.sku, r.available]));
  const short = wanted.find((w) => (available.get(w.sku) ?? -1) < w.quantity);
  if (!short) return undefined;
  const reason = available.has(short.sku)
    ? `insufficient stock for ${short.sku}: ${available.get(short.sku)} available, ${short.quantity} wanted`
    : `unknown SKU ${short.sku}`;
  return { sku: short.sku, reason };
}

export const reserveStock: Step<"order.created", Tx> = async (event, { tx, enqueue }) => {
  const { orderId } = event.payload;
  if (await tx.reservation.findUnique({ where: { orderId } })) return;
  const wanted = unitsBySku(event.payload.lines);
  const shortage = await findShortage(tx, wanted);
  const reply = replyTo(event);
  const answer = { aggregateType: "reservation", aggregateId: orderId, ...reply };
  if (shortage) {
    const { reason, sku } = shortage;
    await tx.reservation.create({
      data: { orderId, status: "REJECTED", reason, replyMessageId: reply.messageId },
    });
    await enqueue({ ...answer, eventType: "inventory.rejected", payload: { orderId, reason, sku } });
    return { rejected: reason };
  }
  for (const w of wanted) {
    await tx.$executeRawUnsafe(
      `UPDATE stock SET available = available - $2, reserved = reserved + $2, updated_at = now() WHERE sku = $1`,
      w.sku,
      w.quantity,
    );
  }
  await tx.reservation.create({
    data: { orderId, status: "RESERVED", lines: wanted, replyMessageId: reply.messageId },
  });
  await enqueue({ ...answer, eventType: "inventory.reserved", payload: { orderId, lines: wanted } });
  return undefined;
};

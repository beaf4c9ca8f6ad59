// order.created -> reserve every line or none, and answer inventory.reserved or inventory.rejected;
// each SKU it took from gets an inventory.stock-changed with its new level.
// The reservation row is the state guard: an order already decided (or cancelled before its create
// arrived, which leaves a RELEASED tombstone) reserves nothing again.
// Set-based: a consumer batch's orders are decided together in two statements, whatever their
// number: one locks every SKU they name and reads which orders are decided already, one writes every
// decision and takes the stock of the reservations that went in. The orders are decided in delivery
// order against the stock the earlier ones left, as one by one would. Plain SQL in the consumer's
// transaction (Prisma's ORM layer cost 2.2x here).

import type { SqlTx } from "@orderflow/db";
import { batchStep, type Enqueue, replyTo } from "@orderflow/service-runtime";
import { publishLevels, type StockLevel } from "./stock-changed.ts";
import { unitsBySku } from "./units-by-sku.ts";

type Wanted = { sku: string; quantity: number }[];
type Shortage = { sku: string; reason: string };

/** Locks the SKUs' stock rows in SKU order (as every writer of stock does) and returns what is available. */
async function lockStock(tx: SqlTx, skus: string[]): Promise<Map<string, number>> {
  const rows = await tx.$queryRawUnsafe<{ sku: string; available: number }[]>(
    `SELECT sku, available FROM stock WHERE sku = ANY($1::text[]) ORDER BY sku FOR UPDATE`,
    skus,
  );
  return new Map(rows.map((r) => [r.sku, r.available]));
}

/** The first line `available` cannot cover, with the reason; undefined when every line fits. */
function shortageIn(available: ReadonlyMap<string, number>, wanted: Wanted): Shortage | undefined {
  const short = wanted.find((w) => (available.get(w.sku) ?? -1) < w.quantity);
  if (!short) return undefined;
  const reason = available.has(short.sku)
    ? `insufficient stock for ${short.sku}: ${available.get(short.sku)} available, ${short.quantity} wanted`
    : `unknown SKU ${short.sku}`;
  return { sku: short.sku, reason };
}

/** The first line the stock cannot cover, its rows locked; for steps that decide one order alone. */
export async function findShortage(tx: SqlTx, wanted: Wanted): Promise<Shortage | undefined> {
  return shortageIn(
    await lockStock(
      tx,
      wanted.map((w) => w.sku),
    ),
    wanted,
  );
}

/** The stock of every SKU the orders name, locked, and which of the orders have a reservation row already. */
async function lockAndRead(tx: SqlTx, orders: { orderId: string; wanted: Wanted }[]) {
  const skus = [...new Set(orders.flatMap((o) => o.wanted.map((w) => w.sku)))];
  const [row] = await tx.$queryRawUnsafe<{ stock: Record<string, number> | null; decided: string[] }[]>(
    `WITH s AS MATERIALIZED (
       SELECT sku, available FROM stock WHERE sku = ANY($1::text[]) ORDER BY sku FOR UPDATE
     )
     SELECT (SELECT json_object_agg(sku, available) FROM s) AS stock,
            array(SELECT order_id FROM reservations WHERE order_id = ANY($2::text[])) AS decided`,
    skus,
    orders.map((o) => o.orderId),
  );
  return {
    available: new Map(Object.entries(row?.stock ?? {})),
    decided: new Set(row?.decided ?? []),
  };
}

type Decision = { orderId: string; customerId: string; total: number; replyMessageId: string } & (
  | { status: "RESERVED"; wanted: Wanted }
  | { status: "REJECTED"; shortage: Shortage }
);

/**
 * Writes the decisions, each only where the order has no row yet (ON CONFLICT DO NOTHING: the row is the
 * guard), and takes the stock of the reservations that went in, summed by SKU in the same statement, so
 * stock moves only with a row written. Returns the orders whose row went in, and the levels of the SKUs
 * whose stock moved.
 */
async function record(
  tx: SqlTx,
  decisions: Decision[],
): Promise<{ written: Set<string>; levels: StockLevel[] }> {
  if (decisions.length === 0) return { written: new Set(), levels: [] };
  const [row] = await tx.$queryRawUnsafe<{ written: string[]; levels: StockLevel[] }[]>(
    `WITH d AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::uuid[])
                  AS d(order_id, status, reason, lines, reply_message_id)
     ), r AS (
       INSERT INTO reservations (order_id, status, reason, lines, reply_message_id)
       SELECT order_id, status, reason, lines, reply_message_id FROM d
       ON CONFLICT (order_id) DO NOTHING
       RETURNING order_id, status, lines
     ), taken AS (
       SELECT l.sku, sum(l.quantity)::int AS quantity
         FROM r, jsonb_to_recordset(r.lines) AS l(sku text, quantity int)
        WHERE r.status = 'RESERVED'
        GROUP BY l.sku
     ), s AS (
       UPDATE stock
          SET available = available - taken.quantity, reserved = reserved + taken.quantity, updated_at = now()
         FROM taken
        WHERE stock.sku = taken.sku
       RETURNING stock.sku, stock.available, stock.reserved
     )
     SELECT array(SELECT order_id FROM r) AS written,
            coalesce((SELECT json_agg(s ORDER BY s.sku) FROM s), '[]'::json) AS levels`,
    decisions.map((d) => d.orderId),
    decisions.map((d) => d.status),
    decisions.map((d) => (d.status === "REJECTED" ? d.shortage.reason : null)),
    decisions.map((d) => JSON.stringify(d.status === "RESERVED" ? d.wanted : [])),
    decisions.map((d) => d.replyMessageId),
  );
  return { written: new Set(row?.written ?? []), levels: row?.levels ?? [] };
}

/** Writes the decision's answer to the outbox; a rejection is also the step's result. */
async function answer(
  d: Decision,
  reply: ReturnType<typeof replyTo>,
  enqueue: Enqueue,
): Promise<{ rejected: string } | undefined> {
  const { orderId } = d;
  const base = { aggregateType: "reservation", aggregateId: orderId, ...reply };
  if (d.status === "RESERVED") {
    // v2: the customer and total ride along, so points grants on this reply beside the order's confirm.
    const { customerId, total } = d;
    await enqueue({
      ...base,
      eventType: "inventory.reserved",
      payload: { orderId, lines: d.wanted, customerId, total },
    });
    return undefined;
  }
  const { reason, sku } = d.shortage;
  await enqueue({ ...base, eventType: "inventory.rejected", payload: { orderId, reason, sku } });
  return { rejected: reason };
}

// Each call's orders are distinct (batchStep puts a second event for one order in a later round).
export const reserveStock = batchStep<"order.created", SqlTx>(
  (event) => event.payload.orderId,
  async (events, { tx, each }) => {
    const orders = events.map((event) => ({
      orderId: event.payload.orderId,
      customerId: event.payload.customerId,
      total: event.payload.total,
      wanted: unitsBySku(event.payload.lines),
      reply: replyTo(event),
    }));
    const { available, decided } = await lockAndRead(tx, orders);
    const decisions: (Decision | undefined)[] = orders.map((o) => {
      if (decided.has(o.orderId)) return undefined;
      const base = {
        orderId: o.orderId,
        customerId: o.customerId,
        total: o.total,
        replyMessageId: o.reply.messageId,
      };
      const shortage = shortageIn(available, o.wanted);
      if (shortage) return { ...base, status: "REJECTED", shortage };
      for (const w of o.wanted) available.set(w.sku, (available.get(w.sku) ?? 0) - w.quantity);
      return { ...base, status: "RESERVED", wanted: o.wanted };
    });
    const { written, levels } = await record(
      tx,
      decisions.filter((d): d is Decision => d !== undefined),
    );
    // A row that appeared between the read and the write (a cancellation's tombstone written meanwhile by
    // another transaction) leaves its order's units counted as taken: a later order of the call might
    // then have been refused stock that is there. Fail instead; the consumer splits the batch and
    // applies each message alone.
    const lost = decisions.some((d) => d?.status === "RESERVED" && !written.has(d.orderId));
    if (lost && events.length > 1)
      throw new Error("a reservation was decided by another transaction meanwhile; apply one by one");
    const results: ({ rejected: string } | undefined)[] = [];
    for (const [i, o] of orders.entries()) {
      const d = decisions[i];
      results.push(d && written.has(o.orderId) ? await answer(d, o.reply, each(i).enqueue) : undefined);
    }
    // Each SKU's new level, in the saga of the last order of the call that took from it.
    const lastTaker = new Map<string, number>();
    for (const [i, d] of decisions.entries())
      if (d?.status === "RESERVED" && written.has(d.orderId))
        for (const w of d.wanted) lastTaker.set(w.sku, i);
    for (const level of levels) {
      const i = lastTaker.get(level.sku) ?? 0;
      const { correlationId } = (events[i] as (typeof events)[number]).envelope;
      await publishLevels(each(i).enqueue, [level], correlationId);
    }
    return results;
  },
);

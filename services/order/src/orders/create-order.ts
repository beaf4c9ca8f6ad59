// POST /orders: the order (PENDING) and its order.created event (a full snapshot) commit together.
// Idempotency-Key: the same key and body return the same order; the same key with another body is a
// conflict. The key row is inserted in the same statement as the order, so two racing requests create one
// order. The hot path is plain SQL on node-postgres (Prisma's client cost 4-5x its CPU per statement):
// key, order, lines, history and the outbox row are one statement, committed alone (one round trip); no
// read-back after it. Prisma reads a replayed order.
import { createHash, randomUUID } from "node:crypto";
import type { SqlTx } from "@orderflow/db";
import { HttpProblem } from "@orderflow/http";
import type { GatedWrite } from "@orderflow/outbox";
import type { ServiceRuntime } from "@orderflow/service-runtime";
import { Prisma } from "../../generated/prisma/client.ts";
import type { Db } from "../db.ts";
import { type OrderView, readOrder } from "./view.ts";

export interface NewOrder {
  customerId: string;
  lines: { sku: string; quantity: number; unitPrice: number }[];
}

export interface RequestContext {
  correlationId: string;
  traceparent?: string | undefined;
}

const MAX_TOTAL = 2_000_000_000; // cents; the column is a 32-bit integer

/** A canonical hash of the body: key order in the JSON does not make two equal requests differ. */
export function requestHash(body: NewOrder): string {
  const canonical = JSON.stringify({
    customerId: body.customerId,
    lines: body.lines.map((l) => [l.sku, l.quantity, l.unitPrice]),
  });
  return createHash("sha256").update(canonical).digest("hex");
}

async function replay(db: Db, key: string, hash: string): Promise<OrderView | undefined> {
  const existing = await db.idempotencyKey.findUnique({ where: { key } });
  if (!existing) return undefined;
  if (existing.requestHash !== hash) {
    throw new HttpProblem(
      "IDEMPOTENCY_KEY_REUSED",
      `Idempotency-Key "${key}" was used with a different body`,
    );
  }
  return readOrder(db, existing.orderId);
}

/**
 * The key, the order (PENDING), its lines (one multi-row insert) and its first history line, as the CTEs of
 * one statement (the runtime adds the outbox row, gated on `o`). The key goes in first with ON CONFLICT DO
 * NOTHING and every other insert reads from it: a key already committed (or committed by a racing request
 * this insert waited for) writes nothing, and the request is answered as a replay of that order.
 */
function orderWrite(
  o: { key: string; hash: string; id: string; body: NewOrder; total: number; messageId: string },
  correlationId: string,
  createdAt: Date,
): GatedWrite {
  const { lines } = o.body;
  const ctes = Prisma.sql`
    k AS (
      INSERT INTO idempotency_keys (key, request_hash, order_id) VALUES (${o.key}, ${o.hash}, ${o.id}::uuid)
      ON CONFLICT (key) DO NOTHING
      RETURNING order_id
    ), o AS (
      INSERT INTO orders (id, customer_id, status, total, created_message_id, correlation_id,
                          created_at, updated_at)
      SELECT order_id, ${o.body.customerId}::text, 'PENDING', ${o.total}::int, ${o.messageId}::uuid,
             ${correlationId}::text, ${createdAt}::timestamptz, ${createdAt}::timestamptz
        FROM k
      RETURNING id
    ), l AS (
      INSERT INTO order_lines (order_id, line_no, sku, quantity, unit_price)
      SELECT o.id, l.line_no, l.sku, l.quantity, l.unit_price
        FROM o, unnest(${lines.map((l) => l.sku)}::text[], ${lines.map((l) => l.quantity)}::int[],
                       ${lines.map((l) => l.unitPrice)}::int[])
                WITH ORDINALITY AS l(sku, quantity, unit_price, line_no)
    ), h AS (
      INSERT INTO order_history (order_id, at, event, detail)
      SELECT o.id, ${createdAt}::timestamptz, 'order.created',
             ${JSON.stringify({ messageId: o.messageId })}::jsonb
        FROM o
    )`;
  return { ctes, gate: "o" };
}

/** The new order as readOrder would show it once committed: built from what was written, not read back. */
function createdView(
  id: string,
  body: NewOrder,
  total: number,
  messageId: string,
  createdAt: Date,
): OrderView {
  const at = createdAt.toISOString();
  return {
    id,
    customerId: body.customerId,
    status: "PENDING",
    lines: body.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, unitPrice: l.unitPrice })),
    total,
    pointsGranted: null,
    cancelReason: null,
    createdAt: at,
    updatedAt: at,
    history: [{ at, event: "order.created", detail: { messageId } }],
  };
}

async function replayOf(db: Db, key: string, hash: string): Promise<OrderView> {
  const winner = await replay(db, key, hash);
  if (!winner) throw new Error(`Idempotency-Key "${key}" conflicted, yet no order has it`);
  return winner;
}

export async function createOrder(
  deps: { db: Db; runtime: Pick<ServiceRuntime<SqlTx>, "writeWithEvents"> },
  key: string,
  body: NewOrder,
  ctx: RequestContext,
): Promise<{ order: OrderView; replayed: boolean }> {
  const hash = requestHash(body);
  const total = body.lines.reduce((sum, l) => sum + l.quantity * l.unitPrice, 0);
  if (total > MAX_TOTAL) {
    // A key already used answers as it did before (a replay, or a conflict) before the body is judged.
    const earlier = await replay(deps.db, key, hash);
    if (earlier) return { order: earlier, replayed: true };
    throw new HttpProblem("VALIDATION_FAILED", `order total ${total} exceeds ${MAX_TOTAL} cents`);
  }
  const id = randomUUID();
  const createdMessageId = randomUUID();
  const createdAt = new Date();
  const order = { key, hash, id, body, total, messageId: createdMessageId };
  const payload = {
    orderId: id,
    customerId: body.customerId,
    lines: body.lines,
    total,
    createdAt: createdAt.toISOString(),
  };
  const created = await deps.runtime.writeWithEvents(orderWrite(order, ctx.correlationId, createdAt), [
    {
      eventType: "order.created",
      aggregateType: "order",
      aggregateId: id,
      messageId: createdMessageId,
      payload,
      correlationId: ctx.correlationId,
      causationId: createdMessageId,
      ...(ctx.traceparent ? { traceparent: ctx.traceparent } : {}),
    },
  ]);
  // The key was there already (an earlier request, or a concurrent one that committed first).
  if (!created) return { order: await replayOf(deps.db, key, hash), replayed: true };
  return { order: createdView(id, body, total, createdMessageId, createdAt), replayed: false };
}

// POST /orders: the order (PENDING) and its order.created event (a full snapshot) commit together.
// Idempotency-Key: the same key and body return the same order; the same key with another body is a
// conflict. The key row is inserted in the same transaction, so two racing requests create one order.
import { createHash, randomUUID } from "node:crypto";
import { HttpProblem } from "@orderflow/http";
import type { ServiceRuntime } from "@orderflow/service-runtime";
import type { Db, Tx } from "../db.ts";
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

const isUniqueViolation = (e: unknown) => (e as { code?: string }).code === "P2002";

export async function createOrder(
  deps: { db: Db; runtime: Pick<ServiceRuntime<Tx>, "inTransaction"> },
  key: string,
  body: NewOrder,
  ctx: RequestContext,
): Promise<{ order: OrderView; replayed: boolean }> {
  const hash = requestHash(body);
  const earlier = await replay(deps.db, key, hash);
  if (earlier) return { order: earlier, replayed: true };

  const total = body.lines.reduce((sum, l) => sum + l.quantity * l.unitPrice, 0);
  if (total > MAX_TOTAL)
    throw new HttpProblem("VALIDATION_FAILED", `order total ${total} exceeds ${MAX_TOTAL} cents`);
  const id = randomUUID();
  const createdMessageId = randomUUID();
  const createdAt = new Date();
  try {
    await deps.runtime.inTransaction(async (tx, enqueue) => {
      await tx.idempotencyKey.create({ data: { key, requestHash: hash, orderId: id } });
      await tx.order.create({
        data: {
          id,
          customerId: body.customerId,
          status: "PENDING",
          total,
          createdMessageId,
          correlationId: ctx.correlationId,
          createdAt,
          lines: { create: body.lines.map((l, i) => ({ lineNo: i + 1, ...l })) },
          history: {
            create: { event: "order.created", detail: { messageId: createdMessageId }, at: createdAt },
          },
        },
      });
      const payload = {
        orderId: id,
        customerId: body.customerId,
        lines: body.lines,
        total,
        createdAt: createdAt.toISOString(),
      };
      await enqueue({
        eventType: "order.created",
        aggregateType: "order",
        aggregateId: id,
        messageId: createdMessageId,
        payload,
        correlationId: ctx.correlationId,
        causationId: createdMessageId,
        ...(ctx.traceparent ? { traceparent: ctx.traceparent } : {}),
      });
    });
  } catch (e) {
    // A concurrent request with the same key committed first: answer as a replay of it.
    if (isUniqueViolation(e)) {
      const winner = await replay(deps.db, key, hash);
      if (winner) return { order: winner, replayed: true };
    }
    throw e;
  }
  const order = await readOrder(deps.db, id);
  if (!order) throw new Error(`order ${id} vanished after its commit`);
  return { order, replayed: false };
}

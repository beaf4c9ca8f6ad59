// POST /orders: the order (PENDING) and its order.created event (a full snapshot) commit together.
// Idempotency-Key: the same key and body return the same order; the same key with another body is a
// conflict. The key row is inserted in the same transaction, so two racing requests create one order.
import { createHash, randomUUID } from "node:crypto";
import { HttpProblem } from "@orderflow/http";
import type { OutgoingMessage } from "@orderflow/outbox";
import type { ServiceRuntime } from "@orderflow/service-runtime";
import type { Db, Tx } from "../db.ts";
import { type OrderView, readOrder } from "./view.ts";

export interface NewOrder {
  customerId: string;
  lines: { sku: string; quantity: number; unitPrice: number }[];
}

/**
 * The fault lab's switches for this use case (load-tests/src/fault); absent in normal operation.
 * publishNow set = the publish-before-commit pitfall: order.created goes straight to the broker inside
 * the transaction instead of into the outbox. rollbackRate: share of transactions rolled back after
 * their work (as a failing later step or a lost connection would), to show which design leaks them.
 */
export interface CreateOrderLab {
  rollbackRate: number;
  publishNow?: (message: OutgoingMessage) => Promise<void>;
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
  deps: { db: Db; runtime: Pick<ServiceRuntime<Tx>, "inTransaction">; lab?: CreateOrderLab },
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
      if (deps.lab?.publishNow) {
        // LAB PITFALL publish-before-commit: the broker has the event before the database has the order.
        await deps.lab.publishNow(labMessage(createdMessageId, payload, ctx.correlationId, createdAt));
      } else {
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
      }
      if (deps.lab && deps.lab.rollbackRate > 0 && Math.random() < deps.lab.rollbackRate)
        throw new Error("fault lab: transaction rolled back on purpose (ORDERFLOW_LAB_ROLLBACK_RATE)");
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

/** The wire form the relay would have sent (see packages/outbox to-message.ts), for the lab's pitfall. */
function labMessage(messageId: string, payload: unknown, correlationId: string, at: Date): OutgoingMessage {
  return {
    messageId,
    routingKey: "order.created",
    type: "order.created",
    body: Buffer.from(JSON.stringify(payload), "utf8"),
    correlationId,
    contentType: "application/json",
    timestamp: Math.floor(at.getTime() / 1000),
    headers: {
      "x-schema-version": 1,
      "x-aggregate-type": "order",
      "x-aggregate-id": (payload as { orderId: string }).orderId,
      "x-correlation-id": correlationId,
      "x-causation-id": messageId,
    },
  };
}

// The saga's replies, as the order service applies them. Each runs inside the consumer's transaction,
// after the inbox row for the message was claimed, so its effect commits once with the message's ack.
// State changes are guarded (FOR UPDATE, then a status check): a late or replayed reply is a no-op.
import { randomUUID } from "node:crypto";
import type { EventPayload, EventType } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import type { Handler, Handlers, InboundEvent } from "@orderflow/messaging";
import { enqueue, markDone } from "@orderflow/outbox";
import type { Tx } from "./db.ts";
import { CANCEL_ACKS } from "./events.ts";

// The consumer opens its transaction with `prisma.$transaction`, so its SqlTx is a Prisma client.
const prismaOf = (tx: SqlTx): Tx => tx as Tx;

type Event<T extends EventType> = InboundEvent<EventPayload<T>>;

async function lockOrder(tx: Tx, orderId: string) {
  const rows = await tx.$queryRawUnsafe<{ status: string }[]>(
    `SELECT status FROM orders WHERE id = $1::uuid FOR UPDATE`,
    orderId,
  );
  return rows[0]?.status;
}

const history = (tx: Tx, orderId: string, event: string, e: Event<EventType>, extra: object = {}) =>
  tx.orderHistory.create({ data: { orderId, event, detail: { messageId: e.envelope.messageId, ...extra } } });

const onReserved: Handler<"inventory.reserved"> = async (e, raw) => {
  const tx = prismaOf(raw);
  const { orderId } = e.payload;
  const status = await lockOrder(tx, orderId);
  // The reply ends order.created's wait whatever the order's state: its row becomes done.
  await markDone(tx, e.envelope.causationId);
  if (status !== "PENDING") {
    if (status) await history(tx, orderId, "inventory.reserved.ignored", e, { status });
    return;
  }
  const order = await tx.order.findUniqueOrThrow({ where: { id: orderId } });
  const messageId = randomUUID();
  await tx.order.update({
    where: { id: orderId },
    data: { status: "CONFIRMED", confirmedMessageId: messageId },
  });
  await history(tx, orderId, "inventory.reserved", e);
  await history(tx, orderId, "order.confirmed", e, { messageId });
  await enqueue(tx, {
    eventType: "order.confirmed",
    aggregateType: "order",
    aggregateId: orderId,
    messageId,
    payload: { orderId, customerId: order.customerId, total: order.total },
    correlationId: e.envelope.correlationId,
    causationId: e.envelope.messageId,
  });
};

const onRejected: Handler<"inventory.rejected"> = async (e, raw) => {
  const tx = prismaOf(raw);
  const { orderId, reason } = e.payload;
  const status = await lockOrder(tx, orderId);
  await markDone(tx, e.envelope.causationId);
  if (status !== "PENDING") {
    if (status) await history(tx, orderId, "inventory.rejected.ignored", e, { status });
    return;
  }
  const order = await tx.order.findUniqueOrThrow({ where: { id: orderId } });
  const messageId = randomUUID();
  await tx.order.update({
    where: { id: orderId },
    data: {
      status: "CANCELLED",
      cancelReason: reason,
      cancelledMessageId: messageId,
      cancelAcks: [...CANCEL_ACKS],
    },
  });
  await history(tx, orderId, "inventory.rejected", e, { reason, sku: e.payload.sku });
  await history(tx, orderId, "order.cancelled", e, { messageId });
  await enqueue(tx, {
    eventType: "order.cancelled",
    aggregateType: "order",
    aggregateId: orderId,
    messageId,
    payload: { orderId, customerId: order.customerId, reason, wasConfirmed: false },
    correlationId: e.envelope.correlationId,
    causationId: e.envelope.messageId,
  });
};

const onGranted: Handler<"points.granted"> = async (e, raw) => {
  const tx = prismaOf(raw);
  const { orderId, points } = e.payload;
  if (!(await lockOrder(tx, orderId))) return;
  await markDone(tx, e.envelope.causationId);
  await tx.order.update({ where: { id: orderId }, data: { pointsGranted: points } });
  await history(tx, orderId, "points.granted", e, { points });
};

/** inventory.released and points.reversed both answer order.cancelled; its row is done after both. */
function onCancelAck(type: (typeof CANCEL_ACKS)[number]) {
  return async (e: Event<"inventory.released" | "points.reversed">, raw: SqlTx) => {
    const tx = prismaOf(raw);
    const { orderId } = e.payload;
    if (!(await lockOrder(tx, orderId))) return;
    const order = await tx.order.findUniqueOrThrow({ where: { id: orderId } });
    const remaining = order.cancelAcks.filter((a) => a !== type);
    await tx.order.update({ where: { id: orderId }, data: { cancelAcks: remaining } });
    await history(tx, orderId, type, e, "points" in e.payload ? { points: e.payload.points } : {});
    if (remaining.length === 0) await markDone(tx, e.envelope.causationId);
  };
}

export function orderHandlers(): Handlers {
  return {
    "inventory.reserved": onReserved,
    "inventory.rejected": onRejected,
    "points.granted": onGranted,
    "inventory.released": onCancelAck("inventory.released"),
    "points.reversed": onCancelAck("points.reversed"),
  };
}

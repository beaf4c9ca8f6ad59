// inventory.rejected -> a PENDING order becomes CANCELLED with the reason, and order.cancelled tells
// inventory and points (each acknowledges it, even with nothing to undo).
import { markDone } from "@orderflow/outbox";
import { replyTo, type Step } from "@orderflow/service-runtime";
import { CANCEL_ACKS } from "../cancel-acks.ts";
import type { Tx } from "../db.ts";
import type { FinalLatency } from "../final-latency.ts";
import { lockOrder, recordHistory } from "./order-rows.ts";

export const cancelRejectedOrder =
  (final: FinalLatency): Step<"inventory.rejected", Tx> =>
  async (event, { tx, enqueue }) => {
    const { orderId, reason } = event.payload;
    const status = await lockOrder(tx, orderId);
    await markDone(tx, event.envelope.causationId);
    if (status !== "PENDING") {
      if (status) await recordHistory(tx, orderId, "inventory.rejected.ignored", event, { status });
      return;
    }
    const order = await tx.order.findUniqueOrThrow({ where: { id: orderId } });
    const next = replyTo(event);
    await tx.order.update({
      where: { id: orderId },
      data: {
        status: "CANCELLED",
        cancelReason: reason,
        cancelledMessageId: next.messageId,
        cancelAcks: [...CANCEL_ACKS],
      },
    });
    final.reached("CANCELLED", order.createdAt);
    await recordHistory(tx, orderId, "inventory.rejected", event, { reason, sku: event.payload.sku });
    await recordHistory(tx, orderId, "order.cancelled", event, { messageId: next.messageId });
    await enqueue({
      eventType: "order.cancelled",
      aggregateType: "order",
      aggregateId: orderId,
      payload: { orderId, customerId: order.customerId, reason, wasConfirmed: false },
      ...next,
    });
  };

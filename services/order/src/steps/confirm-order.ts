// inventory.reserved -> a PENDING order becomes CONFIRMED, and order.confirmed asks points to grant.
import { markDone } from "@orderflow/outbox";
import { replyTo, type Step } from "@orderflow/service-runtime";
import type { Tx } from "../db.ts";
import type { FinalLatency } from "../final-latency.ts";
import { lockOrder, recordHistory } from "./order-rows.ts";

export const confirmOrder =
  (final: FinalLatency): Step<"inventory.reserved", Tx> =>
  async (event, { tx, enqueue }) => {
    const { orderId } = event.payload;
    const status = await lockOrder(tx, orderId);
    // The reply ends order.created's wait whatever the order's state: its row becomes done.
    await markDone(tx, event.envelope.causationId);
    if (status !== "PENDING") {
      if (status) await recordHistory(tx, orderId, "inventory.reserved.ignored", event, { status });
      return;
    }
    const order = await tx.order.findUniqueOrThrow({ where: { id: orderId } });
    const next = replyTo(event);
    await tx.order.update({
      where: { id: orderId },
      data: { status: "CONFIRMED", confirmedMessageId: next.messageId },
    });
    final.reached("CONFIRMED", order.createdAt);
    await recordHistory(tx, orderId, "inventory.reserved", event);
    await recordHistory(tx, orderId, "order.confirmed", event, { messageId: next.messageId });
    await enqueue({
      eventType: "order.confirmed",
      aggregateType: "order",
      aggregateId: orderId,
      payload: { orderId, customerId: order.customerId, total: order.total },
      ...next,
    });
  };

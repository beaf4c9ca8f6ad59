// inventory.rejected -> a PENDING order becomes CANCELLED with the reason, and order.cancelled tells
// inventory and points (each acknowledges it, even with nothing to undo).
import { isUuid } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import { replyTo, type Step } from "@orderflow/service-runtime";
import { CANCEL_ACKS } from "../cancel-acks.ts";
import type { FinalLatency } from "../final-latency.ts";
import { historyOf, lockOrder, recordHistory } from "./order-rows.ts";

export const cancelRejectedOrder =
  (final: FinalLatency): Step<"inventory.rejected", SqlTx> =>
  async (event, { tx, enqueue, markDone }) => {
    const { orderId, reason } = event.payload;
    const next = replyTo(event);
    // One statement locks the order, cancels it if it is still PENDING (the locked row decides) and
    // writes both history lines; it returns what order.cancelled needs.
    const cancelled = isUuid(orderId)
      ? await tx.$queryRaw<{ customer_id: string; created_at: Date }[]>`
          WITH o AS (
            UPDATE orders
               SET status = 'CANCELLED', cancel_reason = ${reason},
                   cancelled_message_id = ${next.messageId}::uuid, cancel_acks = ${[...CANCEL_ACKS]}::text[],
                   updated_at = now()
             WHERE id = ${orderId}::uuid AND status = 'PENDING'
            RETURNING id, customer_id, created_at
          ), h AS (${historyOf(orderId, event, [
            ["inventory.rejected", { reason, sku: event.payload.sku }],
            ["order.cancelled", { messageId: next.messageId }],
          ])})
          SELECT customer_id, created_at FROM o`
      : [];
    await markDone(event.envelope.causationId);
    const order = cancelled[0];
    if (!order) {
      const status = await lockOrder(tx, orderId);
      if (status) await recordHistory(tx, orderId, "inventory.rejected.ignored", event, { status });
      return;
    }
    final.reached("CANCELLED", order.created_at);
    await enqueue({
      eventType: "order.cancelled",
      aggregateType: "order",
      aggregateId: orderId,
      payload: { orderId, customerId: order.customer_id, reason, wasConfirmed: false },
      ...next,
    });
  };

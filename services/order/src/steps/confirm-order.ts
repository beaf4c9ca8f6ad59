// inventory.reserved -> a PENDING order becomes CONFIRMED, and order.confirmed asks points to grant.
import { isUuid } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import { markDone } from "@orderflow/outbox";
import { replyTo, type Step } from "@orderflow/service-runtime";
import type { FinalLatency } from "../final-latency.ts";
import { historyOf, lockOrder, recordHistory } from "./order-rows.ts";

export const confirmOrder =
  (final: FinalLatency): Step<"inventory.reserved", SqlTx> =>
  async (event, { tx, enqueue }) => {
    const { orderId } = event.payload;
    const next = replyTo(event);
    // One statement locks the order, moves it on if it is still PENDING (the locked row decides) and
    // writes both history lines; it returns what order.confirmed needs.
    const confirmed = isUuid(orderId)
      ? await tx.$queryRaw<{ customer_id: string; total: number; created_at: Date }[]>`
          WITH o AS (
            UPDATE orders
               SET status = 'CONFIRMED', confirmed_message_id = ${next.messageId}::uuid, updated_at = now()
             WHERE id = ${orderId}::uuid AND status = 'PENDING'
            RETURNING id, customer_id, total, created_at
          ), h AS (${historyOf(event, [
            ["inventory.reserved"],
            ["order.confirmed", { messageId: next.messageId }],
          ])})
          SELECT customer_id, total, created_at FROM o`
      : [];
    // The reply ends order.created's wait whatever the order's state: its row becomes done.
    await markDone(tx, event.envelope.causationId);
    const order = confirmed[0];
    if (!order) {
      const status = await lockOrder(tx, orderId);
      if (status) await recordHistory(tx, orderId, "inventory.reserved.ignored", event, { status });
      return;
    }
    final.reached("CONFIRMED", order.created_at);
    await enqueue({
      eventType: "order.confirmed",
      aggregateType: "order",
      aggregateId: orderId,
      payload: { orderId, customerId: order.customer_id, total: order.total },
      ...next,
    });
  };

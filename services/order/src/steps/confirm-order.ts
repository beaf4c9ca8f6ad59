// inventory.reserved -> a PENDING order becomes CONFIRMED, and order.confirmed asks points to grant.
// Set-based (issue 11): the consumer hands over a batch's reservations together, and one statement
// confirms them all; under load one by one, this service's consumer was the saga's slowest stage.
import { isUuid } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import { batchStep, replyTo } from "@orderflow/service-runtime";
import type { FinalLatency } from "../final-latency.ts";
import { historiesOf, lockOrder, recordHistory } from "./order-rows.ts";

export const confirmOrder = (final: FinalLatency) =>
  batchStep<"inventory.reserved", SqlTx>(
    (event) => event.payload.orderId.toLowerCase(),
    async (events, { tx, each }) => {
      const asked = events.map((event) => ({ event, orderId: event.payload.orderId, next: replyTo(event) }));
      const valid = asked.filter((a) => isUuid(a.orderId));
      // One statement locks the orders, moves on those still PENDING (the locked row decides) and writes
      // both history lines of each; it returns what order.confirmed needs.
      const confirmed =
        valid.length === 0
          ? []
          : await tx.$queryRaw<{ id: string; customer_id: string; total: number; created_at: Date }[]>`
          WITH i AS (
            SELECT * FROM unnest(${valid.map((a) => a.orderId)}::uuid[],
                                 ${valid.map((a) => a.next.messageId)}::uuid[]) AS i(order_id, message_id)
          ), o AS (
            UPDATE orders
               SET status = 'CONFIRMED', confirmed_message_id = i.message_id, updated_at = now()
              FROM i
             WHERE orders.id = i.order_id AND orders.status = 'PENDING'
            RETURNING orders.id, orders.customer_id, orders.total, orders.created_at
          ), h AS (${historiesOf(
            valid.map((a) => ({
              orderId: a.orderId,
              cause: a.event,
              lines: [["inventory.reserved"], ["order.confirmed", { messageId: a.next.messageId }]],
            })),
          )})
          SELECT id::text AS id, customer_id, total, created_at FROM o`;
      const byId = new Map(confirmed.map((o) => [o.id, o]));
      for (const [i, { event, orderId, next }] of asked.entries()) {
        const { enqueue, markDone } = each(i);
        // The reply ends order.created's wait whatever the order's state: its row becomes done.
        await markDone(event.envelope.causationId);
        const order = isUuid(orderId) ? byId.get(orderId.toLowerCase()) : undefined;
        if (!order) {
          const status = await lockOrder(tx, orderId);
          if (status) await recordHistory(tx, orderId, "inventory.reserved.ignored", event, { status });
          continue;
        }
        final.reached("CONFIRMED", order.created_at);
        await enqueue({
          eventType: "order.confirmed",
          aggregateType: "order",
          aggregateId: orderId,
          payload: { orderId, customerId: order.customer_id, total: order.total },
          ...next,
        });
      }
      return asked.map(() => undefined);
    },
  );

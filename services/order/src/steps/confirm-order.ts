// inventory.reserved -> a PENDING order becomes CONFIRMED. Points grants on the same reservation, beside
// this step, so nothing is published here: the order is final once points.granted is recorded
// too (record-points.ts), whichever of the two commits first. A v1 reservation (queued before inventory
// carried the customer and total) gives points nothing to grant on: for it this step still asks points
// with order.confirmed, as it did before.
// Set-based: the consumer hands over a batch's reservations together, and one statement
// confirms them all; under load one by one, this service's consumer was the saga's slowest stage.
import { grantableReservation, isUuid } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import { batchStep, type Enqueue, replyTo, type StepEvent } from "@orderflow/service-runtime";
import type { FinalLatency } from "../final-latency.ts";
import { historiesOf, lockOrder, recordHistory } from "./order-rows.ts";

/** order.confirmed for an order confirmed on a v1 reservation, its message id recorded for reconciliation. */
async function askPoints(
  tx: SqlTx,
  event: StepEvent<"inventory.reserved">,
  order: { id: string; customer_id: string; total: number },
  enqueue: Enqueue,
) {
  const next = replyTo(event);
  await tx.$executeRaw`
    UPDATE orders SET confirmed_message_id = ${next.messageId}::uuid WHERE id = ${order.id}::uuid`;
  await recordHistory(tx, order.id, "order.confirmed", event, { sent: next.messageId });
  await enqueue({
    eventType: "order.confirmed",
    aggregateType: "order",
    aggregateId: event.payload.orderId,
    payload: { orderId: event.payload.orderId, customerId: order.customer_id, total: order.total },
    ...next,
  });
}

export const confirmOrder = (final: FinalLatency) =>
  batchStep<"inventory.reserved", SqlTx>(
    (event) => event.payload.orderId.toLowerCase(),
    async (events, { tx, each }) => {
      const named = events.filter((e) => isUuid(e.payload.orderId));
      const valid = named.map((e) => e.payload.orderId);
      // One statement locks the orders, moves on those still PENDING (the locked row decides) and writes
      // each one's history line.
      const confirmed =
        valid.length === 0
          ? []
          : await tx.$queryRaw<{ id: string; customer_id: string; total: number; created_at: Date }[]>`
          WITH o AS (
            UPDATE orders SET status = 'CONFIRMED', updated_at = now()
             WHERE orders.id = ANY(${valid}::uuid[]) AND orders.status = 'PENDING'
            RETURNING orders.id, orders.customer_id, orders.total, orders.created_at
          ), h AS (${historiesOf(
            named.map((e) => ({ orderId: e.payload.orderId, cause: e, lines: [["inventory.reserved"]] })),
          )})
          SELECT id::text AS id, customer_id, total, created_at FROM o`;
      const byId = new Map(confirmed.map((o) => [o.id, o]));
      for (const [i, event] of events.entries()) {
        const { orderId } = event.payload;
        // The reply ends order.created's wait whatever the order's state: its row becomes done.
        await each(i).markDone(event.envelope.causationId);
        const order = isUuid(orderId) ? byId.get(orderId.toLowerCase()) : undefined;
        if (!order) {
          const status = await lockOrder(tx, orderId);
          if (status) await recordHistory(tx, orderId, "inventory.reserved.ignored", event, { status });
          continue;
        }
        final.reached("CONFIRMED", order.created_at);
        if (!grantableReservation(event.payload)) await askPoints(tx, event, order, each(i).enqueue);
      }
      return events.map(() => undefined);
    },
  );

// Pitfall publish-before-commit: order.created goes straight to the broker before the write that creates
// the order commits, instead of into the outbox with it, so the broker can have an event for an order the
// database never commits. Plugged around the order service's one-statement write (its `write` part);
// every other event still goes through the outbox.
import type { ConfirmPublisher } from "@orderflow/messaging";
import { type OutboxEvent, outboxRow, toMessage } from "@orderflow/outbox";
import type { WriteWithEvents } from "@orderflow/service-runtime";

const isOrderCreated = (e: OutboxEvent) => e.eventType === "order.created";

export function publishOrderCreatedFirst(publisher: ConfirmPublisher) {
  return (own: WriteWithEvents): WriteWithEvents =>
    async (write, events) => {
      for (const event of events.filter(isOrderCreated)) {
        // The wire form the relay would have sent for this event's row.
        await publisher.publish(
          toMessage({ ...outboxRow(event), id: "0", attempts: 0, createdAt: new Date(), sequence: null }),
        );
      }
      return own(
        write,
        events.filter((e) => !isOrderCreated(e)),
      );
    };
}

/**
 * Not a pitfall but the experiment's trigger: a share of the order service's writes with events (each
 * creates an order) roll back instead of committing, as a failing later step or a lost connection would.
 * With the outbox, a rolled-back order leaves no event; published before the commit, it leaves one.
 */
export function rollBackSomeOrders(rate: number) {
  return (own: WriteWithEvents): WriteWithEvents =>
    async (write, events) => {
      if (Math.random() < rate)
        throw new Error("fault lab: transaction rolled back on purpose (ORDERFLOW_LAB_ROLLBACK_RATE)");
      return own(write, events);
    };
}

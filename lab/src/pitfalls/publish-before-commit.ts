// Pitfall publish-before-commit: order.created goes straight to the broker inside the order's
// transaction instead of into the outbox, so the broker can have an event for an order the database
// never commits. Plugged in through the service's `enqueue` part; every other event still uses the outbox.
import { randomUUID } from "node:crypto";
import type { SqlTx } from "@orderflow/db";
import type { ConfirmPublisher } from "@orderflow/messaging";
import { enqueue, type OutboxEvent, toMessage } from "@orderflow/outbox";

export function publishOrderCreatedNow(publisher: ConfirmPublisher) {
  return async (tx: SqlTx, event: OutboxEvent): Promise<string> => {
    if (event.eventType !== "order.created") return enqueue(tx, event);
    const messageId = event.messageId ?? randomUUID();
    // The wire form the relay would have sent for this event's row (packages/outbox toMessage).
    const message = toMessage({
      id: "0",
      messageId,
      eventType: event.eventType,
      aggregateType: event.aggregateType,
      aggregateId: event.aggregateId,
      payload: JSON.stringify(event.payload),
      schemaVersion: event.schemaVersion ?? 1,
      headers: {
        ...(event.correlationId ? { correlationId: event.correlationId } : {}),
        ...(event.causationId ? { causationId: event.causationId } : {}),
      },
      attempts: 0,
      createdAt: new Date(),
    });
    await publisher.publish(message);
    return messageId;
  };
}

/**
 * Not a pitfall but the experiment's trigger: a share of order transactions roll back after their work,
 * as a failing later step or a lost connection would. With the outbox, a rolled-back order leaves no
 * event; published before the commit, it leaves one.
 */
export function rollBackSomeOrders<Tx extends SqlTx>(
  write: (tx: Tx, event: OutboxEvent) => Promise<string>,
  rate: number,
) {
  return async (tx: Tx, event: OutboxEvent): Promise<string> => {
    const id = await write(tx, event);
    if (event.eventType === "order.created" && Math.random() < rate)
      throw new Error("fault lab: transaction rolled back on purpose (ORDERFLOW_LAB_ROLLBACK_RATE)");
    return id;
  };
}

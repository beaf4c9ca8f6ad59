// Turns a service's subscriptions (steps that take a typed transaction and a bound enqueue) into the
// consumer's handlers (which take the transaction alone).
import { randomUUID } from "node:crypto";
import type { EventType } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import type { Handler, Handlers, InboundEvent } from "@orderflow/messaging";
import type { OutboxEvent } from "@orderflow/outbox";
import type { Step, Subscriptions } from "./parts.ts";

export function bindSteps<Tx extends SqlTx>(
  subscriptions: Subscriptions<Tx>,
  write: (tx: Tx, event: OutboxEvent) => Promise<string>,
): Handlers<Tx> {
  const handlers: Handlers<Tx> = {};
  for (const [type, step] of Object.entries(subscriptions) as [EventType, Step<EventType, Tx>][]) {
    const handler: Handler<EventType, Tx> = (event, tx) => step(event, { tx, enqueue: (e) => write(tx, e) });
    (handlers as Record<string, Handler<EventType, Tx>>)[type] = handler;
  }
  return handlers;
}

/**
 * The identifiers of the event a step publishes in answer to `event` (a reply, or the saga's next
 * request): a fresh message id (recorded by the step, so a re-sent event keeps it), the saga's
 * correlation id carried over, and the incoming message as its cause.
 */
export function replyTo(event: InboundEvent): {
  messageId: string;
  correlationId: string;
  causationId: string;
} {
  return {
    messageId: randomUUID(),
    correlationId: event.envelope.correlationId,
    causationId: event.envelope.messageId,
  };
}

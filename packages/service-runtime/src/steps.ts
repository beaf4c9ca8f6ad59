// Turns a service's subscriptions (steps that take a typed transaction, a bound enqueue and markDone)
// into the consumer's handlers (which take the transaction alone), and set-based steps into its batch
// handlers.
import { randomUUID } from "node:crypto";
import type { EventType } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import type {
  BatchHandler,
  BatchHandlers,
  Handler,
  HandlerResult,
  Handlers,
  InboundEvent,
} from "@orderflow/messaging";
import type { DoneMark, OutboxEvent } from "@orderflow/outbox";
import type { BatchStep, MarkDone, Step, StepEvent, StepMany, Subscriptions } from "./parts.ts";

export function bindSteps<Tx extends SqlTx>(
  subscriptions: Subscriptions<Tx>,
  outbox: {
    write: (tx: Tx, event: OutboxEvent) => Promise<string>;
    done: (tx: Tx, mark: DoneMark) => Promise<void>;
  },
): { handlers: Handlers<Tx>; batchHandlers: BatchHandlers<Tx> } {
  const handlers: Record<string, Handler<EventType, Tx>> = {};
  const batchHandlers: Record<string, BatchHandler<EventType, Tx>> = {};
  const markDone =
    (tx: Tx): MarkDone =>
    (causationId, onlyForAggregate) =>
      outbox.done(tx, { causationId, onlyForAggregate });
  for (const [type, step] of Object.entries(subscriptions) as [EventType, Step<EventType, Tx>][]) {
    handlers[type] = (event, tx) =>
      step(event, { tx, enqueue: (e) => outbox.write(tx, e), markDone: markDone(tx) });
    const many = (step as Partial<BatchStep<EventType, Tx>>).many;
    if (many)
      batchHandlers[type] = (events, tx, within) =>
        many(events, {
          tx,
          // Event i's outbox rows are prepared within its span, so they carry its trace context.
          each: (i) => ({ enqueue: (e) => within(i, () => outbox.write(tx, e)), markDone: markDone(tx) }),
        });
  }
  return { handlers: handlers as Handlers<Tx>, batchHandlers: batchHandlers as BatchHandlers<Tx> };
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

/**
 * Makes a Step of a set-based one. The consumer calls `many` with the events of one type it may apply
 * together (each about another aggregate by its header); `keyOf` (the step's own key, e.g. the payload's
 * order id) splits a call whose events still share one into rounds, each round a call of its own, in order.
 */
export function batchStep<T extends EventType, Tx>(
  keyOf: (event: StepEvent<T>) => string,
  many: StepMany<T, Tx>,
): BatchStep<T, Tx> {
  const rounds: StepMany<T, Tx> = async (events, ctx) => {
    const out: HandlerResult[] = new Array(events.length);
    let left = events.map((_, i) => i);
    while (left.length > 0) {
      const seen = new Set<string>();
      const now: number[] = [];
      const later: number[] = [];
      for (const i of left) {
        const k = keyOf(events[i] as StepEvent<T>);
        (seen.has(k) ? later : now).push(i);
        seen.add(k);
      }
      const results = await many(
        now.map((i) => events[i] as StepEvent<T>),
        { tx: ctx.tx, each: (j) => ctx.each(now[j] as number) },
      );
      for (const [j, i] of now.entries()) out[i] = results[j] ?? undefined;
      left = later;
    }
    return out;
  };
  const one: Step<T, Tx> = async (event, ctx) => {
    const [r] = await many([event], { tx: ctx.tx, each: () => ctx });
    return r;
  };
  return Object.assign(one, { many: rounds });
}

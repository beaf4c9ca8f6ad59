// The parts a service is composed of: its steps, and the seams around the relay, the consumer and the
// HTTP write path. Each default is the protection the design relies on; the fault lab composes a service
// with other parts to show what each protection prevents. Production passes no parts.
import type { EventPayload, EventType } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import type { DedupCache, HandlerResult, InboundEvent, Inbox, Settle } from "@orderflow/messaging";
import type { GatedWrite, OutboxEvent, RelayStrategies } from "@orderflow/outbox";

/** Writes an event inside the caller's transaction; returns its message id. */
export type Enqueue = (event: OutboxEvent) => Promise<string>;

/**
 * Ends the wait of the outbox row a reply answers (its causation id), inside the caller's transaction.
 * The mark is held to the transaction's end and goes with the batch's other marks in one statement.
 */
export type MarkDone = (causationId: string, onlyForAggregate?: string) => Promise<void>;

/**
 * What a saga step gets: the consumer's transaction, typed as the service's own, and an enqueue and a
 * markDone bound to it.
 */
export interface StepContext<Tx> {
  tx: Tx;
  enqueue: Enqueue;
  markDone: MarkDone;
}

/** The event a step gets: validated against its contract, typed by its event type. */
export type StepEvent<T extends EventType> = InboundEvent<EventPayload<T>> & { type: T };

/**
 * One step of the saga: applies one event type inside the consumer's transaction, after the inbox claim.
 * Returns nothing when done, or `{ rejected }` when it answered with a business rejection.
 */
export type Step<T extends EventType, Tx> = (
  event: StepEvent<T>,
  ctx: StepContext<Tx>,
  // biome-ignore lint/suspicious/noConfusingVoidType: a step that returns nothing is a plain "done"
) => Promise<HandlerResult | void>;

/**
 * A step for several events of its type at once, in set-based statements (one statement for a batch
 * instead of one or two per event). Each call gets events about distinct aggregates (`keyOf`), and
 * `each(i)` is the enqueue and markDone of event i. Returns what the step returns for each event.
 */
export type StepMany<T extends EventType, Tx> = (
  events: StepEvent<T>[],
  ctx: { tx: Tx; each: (i: number) => { enqueue: Enqueue; markDone: MarkDone } },
  // biome-ignore lint/suspicious/noConfusingVoidType: a step that returns nothing is a plain "done"
) => Promise<(HandlerResult | void)[]>;

/** A step written set-based: applies one event as a batch of one, and a consumer batch's events together. */
export type BatchStep<T extends EventType, Tx> = Step<T, Tx> & { many: StepMany<T, Tx> };

/** A service's subscriptions: the event types bound to its work queue, each with the step that applies it. */
export type Subscriptions<Tx> = { [T in EventType]?: Step<T, Tx> };

/**
 * A write that is one statement (its CTEs) and its events; the events are written only when the write's
 * gate has a row. Returns whether it had (ServiceRuntime.writeWithEvents).
 */
export type WriteWithEvents = (write: GatedWrite, events: readonly OutboxEvent[]) => Promise<boolean>;

/** How the consumer deduplicates and settles; each one left out is the protection. */
export interface ConsumerStrategies {
  /** The deduplication key. Default: the message id (never a business id). */
  dedupKey?: (event: InboundEvent) => string;
  /** Where the consumer records what it applied. Default: the inbox table, in the effect's transaction. */
  inbox?: Inbox;
  /** The early skip before the transaction. Default: Redis when REDIS_URL is set. */
  dedupCache?: (redisUrl: string | undefined) => DedupCache | undefined;
  /**
   * Wraps how deliveries are settled. Default: as built (acked after the commit; retry tiers, then the
   * parking lot).
   */
  settle?: (own: Settle) => Settle;
}

export interface ServiceParts {
  /** How the fast path claims and publishes (the relay process takes the same strategies). */
  relay?: RelayStrategies;
  consumer?: ConsumerStrategies;
  /** Steps replacing the service's own, by event type (they run in the consumer's transaction). */
  steps?: Subscriptions<SqlTx>;
  /** Wraps the HTTP routes' one-statement write with its events. Default: as built. */
  write?: (own: WriteWithEvents) => WriteWithEvents;
}

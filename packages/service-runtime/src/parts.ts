// The parts a service is composed of. Each default is the protection the design relies on; the fault
// lab (lab/src/pitfalls) composes a service with other parts to show what each protection prevents.
// Production code never chooses anything but the defaults: it simply passes no parts.
import type { EventPayload, EventType } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import type { DedupCache, HandlerResult, InboundEvent, Inbox, Settle } from "@orderflow/messaging";
import type { ClaimStrategy, OutboxEvent, RelayConfig, RelayPublisherFactory } from "@orderflow/outbox";

/** Writes an event inside the caller's transaction; returns its message id. */
export type Enqueue = (event: OutboxEvent) => Promise<string>;

/**
 * Ends the wait of the outbox row a reply answers (its causation id), inside the caller's transaction.
 * In the consumer's buffered outbox (the default) the mark is held to the transaction's end and goes with
 * the batch's other marks in one statement; with another `enqueue` part it runs at once.
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
 * A step for several events of its type at once, in set-based statements (issue 11: one statement for a
 * batch instead of one or two per event). Each call gets events about distinct aggregates (`keyOf`), and
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

export interface ServiceParts {
  /** How an event leaves a transaction (the HTTP path's or the consumer's). Default: an outbox row, published after the commit. */
  enqueue?: (tx: SqlTx, event: OutboxEvent) => Promise<string>;
  /** How relays claim outbox rows. Default: the leased claim (SKIP LOCKED, lease, compare-and-set). */
  claim?: ClaimStrategy;
  /** The fast path's publisher. Default: the confirm publisher (sent = confirmed by the broker). */
  relayPublisher?: RelayPublisherFactory;
  /** The fast path's relay settings on top of the service's. Default: none (backoff, health gate, bounds). */
  relay?: Partial<RelayConfig>;
  /** The consumer's deduplication key. Default: the message id (never a business id). */
  dedupKey?: (event: InboundEvent) => string;
  /** Where the consumer records what it applied. Default: the inbox table, in the effect's transaction. */
  inbox?: Inbox;
  /** Default: manual acks, after the commit. */
  ackMode?: "manual" | "auto";
  /** Wraps how deliveries are settled. Default: as built (retry tiers, then the parking lot). */
  settle?: (own: Settle) => Settle;
  /** The early skip before the transaction. Default: Redis when REDIS_URL is set. */
  dedupCache?: (redisUrl: string | undefined) => DedupCache | undefined;
  /** Steps replacing the service's own, by event type (they run in the consumer's transaction). */
  steps?: Subscriptions<SqlTx>;
}

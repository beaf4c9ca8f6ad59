// The consumer's shapes: what a service gives (handlers, a transaction runner, the seams it is composed
// of) and what it gets back. Apart from the implementation so every part imports them without a cycle.

import type { EventPayload, EventType } from "@orderflow/contracts";
import type { RunTransaction, SqlTx } from "@orderflow/db";
import type { Logger } from "@orderflow/logging";
import type { Channel, ConsumeMessage } from "amqplib";
import type { BrokerConnection } from "./connection-types.ts";
import type { DedupCache } from "./dedup-cache.ts";
import type { InboundEvent, ParkReason } from "./inbound.ts";
import type { Inbox } from "./inbox.ts";
import type { RetentionConfig } from "./retention.ts";
import type { RetryTier } from "./topology.ts";

/** void = done. A business rejection (insufficient stock...) is also a success for the message: the
 * handler has written its compensating event (outbox row) in the same tx, and the message is acked. */
export type HandlerResult = undefined | { rejected: string };

/** Handles one event type inside the transaction that also holds the inbox claim. */
export type Handler<T extends EventType, Tx extends SqlTx = SqlTx> = (
  event: InboundEvent<EventPayload<T>> & { type: T },
  tx: Tx,
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing is a plain "done"
) => Promise<HandlerResult | void>;

export type Handlers<Tx extends SqlTx = SqlTx> = { [T in EventType]?: Handler<T, Tx> };

/**
 * Handles several events of one type, each about another aggregate, inside one transaction (set-based
 * statements: one round trip for all of them instead of one or two each). Returns what the type's
 * Handler would have returned for each event, in the same order. `within(i, fn)` runs fn in event i's
 * span, so what the handler writes for event i (an outbox row's trace context) joins event i's trace.
 */
export type BatchHandler<T extends EventType, Tx extends SqlTx = SqlTx> = (
  events: (InboundEvent<EventPayload<T>> & { type: T })[],
  tx: Tx,
  within: <R>(i: number, fn: () => R) => R,
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing is a plain "done"
) => Promise<(HandlerResult | void)[]>;

export type BatchHandlers<Tx extends SqlTx = SqlTx> = { [T in EventType]?: BatchHandler<T, Tx> };

export type Outcome =
  | {
      kind:
        | "done"
        | "rejected"
        | "duplicate"
        | "duplicate-cache"
        | "duplicate-conflict"
        | "cache-unconfirmed";
      messageId: string;
      type: string;
    }
  | {
      kind: "retried";
      messageId: string;
      type: string;
      tier: RetryTier;
      /** The attempt number the copy carries; not increased for an infrastructure failure. */
      attempt: number;
      error: string;
      /**
       * The attempt was not spent: the failure came before the handler ran (database unavailable), or an
       * ordered message waits for its turn.
       */
      infrastructure: boolean;
    }
  | { kind: "parked"; messageId: string | undefined; reason: ParkReason; detail: string }
  | { kind: "requeued"; messageId: string | undefined; error: string };

export interface ConsumerOptions<Tx extends SqlTx = SqlTx> {
  connection: BrokerConnection;
  /** The work queue, e.g. "inventory.order-events". */
  queue: string;
  /** Inbox key part: stable per logical consumer, shared by its instances. */
  consumerName: string;
  handlers: Handlers<Tx>;
  /**
   * Set-based versions of some handlers, used inside a batch for the events of their type (batch-plan.ts
   * says which run together); a message applied alone, or after a split, goes through `handlers`.
   */
  batchHandlers?: BatchHandlers<Tx>;
  /** Opens the transaction each handler runs in (with the inbox claim). */
  transaction: RunTransaction<Tx>;
  retention: RetentionConfig;
  /** Early skip before the database (Redis); "known" must mean "applied". */
  dedupCache?: DedupCache;
  /** What a delivery is deduplicated on. Default: the message id (one key per message). */
  dedupKey?: (event: InboundEvent) => string;
  /** Where applied keys are recorded, in the handler's transaction. Default: sqlInbox. */
  inbox?: Inbox;
  /**
   * Wraps how deliveries are settled (ack, requeue, retry tier, parking lot). Default: as built, so a
   * message past its last tier or refused as poison ends in the parking lot.
   */
  settle?: (own: Settle) => Settle;
  /** Default 100 (quorum queues perform badly below). */
  prefetch?: number;
  /**
   * Most deliveries one transaction applies (default 50). 1 = one message per transaction. A batch forms
   * only from what is waiting when a transaction slot frees up, so it adds no wait at low rates.
   */
  batchSize?: number;
  /**
   * Transactions (of one message or a batch) run at once; the rest wait in process. Default 1: batches
   * of one consumer then never lock rows in opposite orders. With batchSize 1, use about 4.
   */
  concurrency?: number;
  /** Observes batches that failed and were split (metrics, tests). */
  batchStats?: BatchStats;
  /** One retry per entry, then the parking lot. Default 1s, 5s, 30s. */
  retrySchedule?: readonly RetryTier[];
  /** Which handler errors are worth a retry. Default: all but PoisonMessageError. */
  isTransient?: (e: unknown) => boolean;
  /**
   * How long an ordered message (x-sequence) that arrived before the one it follows waits for it, cycling
   * through the first retry tier, before it is parked as `sequence-gap`. Default 120000: longer than a
   * message's whole retry schedule, so a predecessor that is only being retried is waited for.
   */
  sequenceGapWaitMs?: number;
  /** Wait after a lost channel before re-subscribing on a live connection. Default 1500. */
  resubscribeDelayMs?: number;
  /**
   * The queue is declared with x-single-active-consumer (every queue that carries an ordered stream is):
   * an instance that is not the active one idles by design, and the silent-channel watchdog leaves a
   * channel alone until it has delivered.
   */
  singleActiveConsumer?: boolean;
  /** Interval of the silent-channel watchdog (0 = off). Default 15000. */
  silentChannelCheckMs?: number;
  shutdownTimeoutMs?: number;
  confirmTimeoutMs?: number;
  log?: Logger;
  /** Observes every outcome (metrics, tests). */
  onOutcome?: (o: Outcome) => void;
  /** Named fault points a test arms to break the runtime on purpose; never set in services. */
  faults?: ConsumerFaults;
}

export interface BatchStats {
  /** A batch that failed and was applied message by message. */
  onSplit?: (size: number, error: string) => void;
}

export interface ConsumerFaults {
  /** Runs once a consumer is subscribed, with its channel (e.g. cancel it behind the runtime's back). */
  afterSubscribe?: (ch: Channel, consumerTag: string) => Promise<void>;
}

export interface ConsumerHealth {
  queue: string;
  consuming: boolean;
  inFlight: number;
  counts: Record<Outcome["kind"] | "recycled", number>;
  /** Each interruption of intake: when it began and how long until consuming again (ms). */
  gaps: { at: number; ms: number }[];
  lastDeliveryAt: number | undefined;
}

export interface Consumer {
  health(): ConsumerHealth;
  /** Stops intake, waits for in-flight handlers (up to shutdownTimeoutMs), closes its channels. Idempotent. */
  stop(): Promise<void>;
}

/** One delivery and its logger (carrying messageId, correlationId, eventType, queue). */
export interface Delivery {
  ch: Channel;
  msg: ConsumeMessage;
  log: Logger;
}

export interface RetryPlan {
  type: string;
  messageId: string;
  tier: RetryTier;
  attempt: number;
  error: string;
  infrastructure: boolean;
  /** Headers the copy carries besides the original's (an ordered message's wait: turn.ts). */
  headers?: Record<string, unknown>;
}

export interface Settle {
  /** A delivery arrived, before any work on it (in the channel's delivery order). */
  received(ch: Channel, msg: ConsumeMessage): void;
  /** Acked once every earlier delivery on its channel is settled (ack-ledger.ts). */
  ack(d: Delivery): void;
  requeue(d: Delivery, error: string): void;
  park(d: Delivery, reason: ParkReason, detail: string): Promise<void>;
  retry(d: Delivery, plan: RetryPlan): Promise<void>;
}

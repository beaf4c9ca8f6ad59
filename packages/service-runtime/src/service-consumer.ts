// The consumer of a service's work queue, as every service runs it: the failover connection, the Redis
// early skip, an outcome counter, and a limit on concurrent transactions.
import { type EventType, orderedByAggregate } from "@orderflow/contracts";
import type { RunTransaction, SqlTx } from "@orderflow/db";
import type { Logger } from "@orderflow/logging";
import {
  type BatchHandler,
  type BatchHandlers,
  createBrokerConnection,
  createRedisDedupCache,
  type DedupCache,
  type Handler,
  type Handlers,
  type Outcome,
  startConsumer,
} from "@orderflow/messaging";
import { Counter, Histogram, type Registry } from "prom-client";
import type { ConsumerStrategies } from "./parts.ts";
import { shutdownStep } from "./shutdown.ts";

export interface ServiceConsumerOptions<Tx extends SqlTx> {
  service: string;
  amqpUrls: string[];
  redisUrl: string | undefined;
  queue: string;
  handlers: Handlers<Tx>;
  /** Set-based steps, for the events of their type inside a consumer batch. */
  batchHandlers: BatchHandlers<Tx>;
  transaction: RunTransaction<Tx>;
  /** How many consumer transactions run at once; the rest wait their turn in process. */
  concurrency: number;
  /** Most messages one transaction applies. */
  batchSize: number;
  prefetch: number | undefined;
  log: Logger;
  registry: Registry;
  retention: { retentionMs: number; relayMaxBackoffMs: number; reconciliationPeriodMs: number };
  /** How it deduplicates and settles; each one left out is the protection. */
  strategies: ConsumerStrategies;
}

/**
 * consumer_handle_seconds{queue, outcome}: from the start of a delivery's handler to its outcome (the
 * commit included; the inbox claim before it and the wait for a transaction slot are not). Deliveries
 * settled before any handler ran (duplicates, parked as malformed) are not observed: they cost no handling.
 */
function handlingTimer<Tx extends SqlTx>(queue: string, registry: Registry) {
  const seconds = new Histogram({
    name: "consumer_handle_seconds",
    help: "From a handler's start to the delivery's outcome (commit included), by queue and outcome",
    labelNames: ["queue", "outcome"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const began = new Map<string, number>();
  const start = (messageId: string) => {
    // An outcome always follows a handler; the bound only guards against one that never comes.
    if (began.size > 10_000) began.clear();
    began.set(messageId, performance.now());
  };
  return {
    wrap(handlers: Handlers<Tx>): Handlers<Tx> {
      const out: Record<string, Handler<EventType, Tx>> = {};
      for (const [type, h] of Object.entries(handlers) as [EventType, Handler<EventType, Tx>][]) {
        out[type] = (event, tx) => {
          start(event.envelope.messageId);
          return h(event, tx);
        };
      }
      return out as Handlers<Tx>;
    },
    wrapMany(handlers: BatchHandlers<Tx>): BatchHandlers<Tx> {
      const out: Record<string, BatchHandler<EventType, Tx>> = {};
      for (const [type, h] of Object.entries(handlers) as [EventType, BatchHandler<EventType, Tx>][]) {
        out[type] = (events, tx, within) => {
          for (const e of events) start(e.envelope.messageId);
          return h(events, tx, within);
        };
      }
      return out as BatchHandlers<Tx>;
    },
    outcome(o: Outcome) {
      const at = o.messageId !== undefined ? began.get(o.messageId) : undefined;
      if (at === undefined || o.messageId === undefined) return;
      began.delete(o.messageId);
      seconds.observe({ queue, outcome: o.kind }, (performance.now() - at) / 1000);
    },
  };
}

const redisCache = (log: Logger, ttlMs: number) => (url: string | undefined) =>
  url ? createRedisDedupCache({ url, ttlMs, log }) : undefined;

export async function startServiceConsumer<Tx extends SqlTx>(opts: ServiceConsumerOptions<Tx>) {
  // messaging's consumer adds the queue (and each delivery its message's ids) to this logger's lines.
  const log = opts.log.child({ component: "consumer" });
  const connection = createBrokerConnection({ urls: opts.amqpUrls, name: `${opts.service}-consumer`, log });
  const dedupCache: DedupCache | undefined = (
    opts.strategies.dedupCache ?? redisCache(log, opts.retention.retentionMs)
  )(opts.redisUrl);
  const outcomes = new Counter({
    name: "consumer_messages_total",
    help: "Messages handled by this service's consumer, by outcome (done, rejected, duplicate, retried, parked...)",
    labelNames: ["queue", "outcome", "type"],
    registers: [opts.registry],
  });
  const handling = handlingTimer<Tx>(opts.queue, opts.registry);
  const splits = new Counter({
    name: "consumer_batch_splits_total",
    help: "Consumer batches that failed as a whole and were applied message by message",
    labelNames: ["queue"],
    registers: [opts.registry],
  });
  await connection.ready(30_000);
  const { dedupKey, inbox, settle } = opts.strategies;
  const consumer = await startConsumer<Tx>({
    connection,
    queue: opts.queue,
    consumerName: opts.service,
    handlers: handling.wrap(opts.handlers),
    batchHandlers: handling.wrapMany(opts.batchHandlers),
    transaction: opts.transaction,
    batchSize: opts.batchSize,
    concurrency: opts.concurrency,
    batchStats: { onSplit: () => splits.inc({ queue: opts.queue }) },
    // A queue that carries an ordered stream has one active consumer (infra/rabbitmq/definitions.json).
    singleActiveConsumer: Object.keys(opts.handlers).some((t) => orderedByAggregate(t as EventType)),
    retention: opts.retention,
    log,
    ...(dedupCache ? { dedupCache } : {}),
    ...(opts.prefetch ? { prefetch: opts.prefetch } : {}),
    ...(dedupKey ? { dedupKey } : {}),
    ...(inbox ? { inbox } : {}),
    ...(settle ? { settle } : {}),
    onOutcome: (o: Outcome) => {
      outcomes.inc({ queue: opts.queue, outcome: o.kind, type: "type" in o ? o.type : "" });
      handling.outcome(o);
    },
  });
  return {
    consumer,
    isConnected: () => connection.health().connected,
    /** Stops intake and drains in-flight handlers, then closes the connection and the cache. */
    async stop(): Promise<void> {
      await shutdownStep(opts.log, "consumer.stop", () => consumer.stop());
      await shutdownStep(opts.log, "connection.close", () => connection.close());
      await shutdownStep(opts.log, "dedup_cache.close", async () => dedupCache?.close());
    },
  };
}

// What every service runs besides its HTTP routes: the outbox relay's fast path, the consumer of its work
// queue, Prometheus metrics, readiness checks, and the shutdown order:
// stop consuming (drain in-flight handlers) -> flush the fast path -> close broker -> close pools.
import type { RunTransaction, SqlTx } from "@orderflow/db";
import type { Logger } from "@orderflow/logging";
import type { Consumer } from "@orderflow/messaging";
import type { Relay, RelayConfig } from "@orderflow/outbox";
import { collectDefaultMetrics, Registry } from "prom-client";
import { gatedWrites } from "./gated-write.ts";
import { startInProcessRelay } from "./in-process-relay.ts";
import { bufferedOutbox } from "./outbox-buffer.ts";
import type { Enqueue, ServiceParts, Subscriptions, WriteWithEvents } from "./parts.ts";
import { startServiceConsumer } from "./service-consumer.ts";
import { bindSteps } from "./steps.ts";

export interface RuntimeOptions<Tx extends SqlTx> {
  service: string;
  databaseUrl: string;
  amqpUrls: string[];
  redisUrl: string | undefined;
  /** This service's work queue and the steps for the event types bound to it. */
  queue: string;
  subscriptions: Subscriptions<SqlTx>;
  /** The service's way to open a transaction, e.g. `(fn) => prisma.$transaction(fn)` (the HTTP path). */
  transaction: RunTransaction<Tx>;
  /**
   * The consumer's, on a pool of its own so a burst of deliveries cannot starve the HTTP path; plain SQL
   * (node-postgres), the saga's hot path.
   */
  consumerTransaction: RunTransaction<SqlTx>;
  /** Plain SQL (node-postgres) statements on the HTTP hot path's pool, no transaction around them. */
  sqlAutocommit: SqlTx;
  /** How many consumer transactions run at once (the rest wait their turn in process). Default 1. */
  consumerConcurrency?: number;
  /** Most messages one consumer transaction applies (1 = one per transaction). Default 50. */
  consumerBatchSize?: number;
  log: Logger;
  /** Inbox retention; must outlive the redelivery horizon (checked by the consumer at start). */
  inboxRetentionMs: number;
  relayMaxBackoffMs: number;
  reconciliationPeriodMs: number;
  relay?: Partial<RelayConfig>;
  /** Consumer prefetch; the messaging default (100) suits quorum queues. */
  prefetch?: number;
  /** The parts this service is composed of; every default is the protection (see parts.ts). */
  parts?: ServiceParts;
}

export interface ServiceRuntime<Tx extends SqlTx> {
  metrics: Registry;
  relay: Relay;
  consumer: Consumer;
  /** Runs `work` in a transaction with an enqueue bound to it; after the commit the fast path publishes. */
  inTransaction<T>(work: (tx: Tx, enqueue: Enqueue) => Promise<T>): Promise<T>;
  /**
   * A write that is one statement (its CTEs) and its events, for the hottest route (POST /orders): the
   * outbox rows join the statement, which commits alone (one round trip, not four). The events are
   * written only when the write's gate has a row; returns whether it had.
   */
  writeWithEvents: WriteWithEvents;
  readiness: Record<string, () => Promise<boolean>>;
  shutdown(): Promise<void>;
}

export async function startServiceRuntime<Tx extends SqlTx>(
  opts: RuntimeOptions<Tx>,
): Promise<ServiceRuntime<Tx>> {
  const parts = opts.parts ?? {};
  const metrics = new Registry();
  metrics.setDefaultLabels({ service: opts.service });
  collectDefaultMetrics({ register: metrics });

  const fastPath = startInProcessRelay({
    ...opts,
    registry: metrics,
    ...(parts.relay ? { strategies: parts.relay } : {}),
  });
  // The consumer's outbox rows (a batch's replies) are held until its transaction ends, go in one insert
  // and take the fast path after the commit.
  const consumerOutbox = bufferedOutbox(opts.consumerTransaction, fastPath.relay);
  const consuming = await startServiceConsumer<SqlTx>({
    ...opts,
    ...bindSteps({ ...opts.subscriptions, ...parts.steps }, consumerOutbox),
    transaction: consumerOutbox.transaction,
    concurrency: opts.consumerConcurrency ?? 1,
    batchSize: opts.consumerBatchSize ?? 50,
    prefetch: opts.prefetch,
    registry: metrics,
    retention: {
      retentionMs: opts.inboxRetentionMs,
      relayMaxBackoffMs: opts.relayMaxBackoffMs,
      reconciliationPeriodMs: opts.reconciliationPeriodMs,
    },
    strategies: parts.consumer ?? {},
  });

  // The HTTP routes' transactions write their events as the consumer's do (one insert, leased to the
  // fast path).
  const httpOutbox = bufferedOutbox(opts.transaction, fastPath.relay);
  const writeWithEvents = gatedWrites(opts.sqlAutocommit, fastPath.relay);

  let shuttingDown: Promise<void> | undefined;
  return {
    metrics,
    relay: fastPath.relay,
    consumer: consuming.consumer,
    inTransaction: (work) => httpOutbox.transaction((tx) => work(tx, (event) => httpOutbox.write(tx, event))),
    writeWithEvents: parts.write ? parts.write(writeWithEvents) : writeWithEvents,
    readiness: {
      database: fastPath.ping,
      broker: async () => consuming.isConnected() && fastPath.isConnected(),
    },
    shutdown: () => {
      shuttingDown ??= (async () => {
        await consuming.stop();
        await fastPath.stop();
      })();
      return shuttingDown;
    },
  };
}

// What every service runs besides its HTTP routes: the outbox relay's fast path (in process, on its own
// pool so a busy service pool cannot starve it), the consumer of its work queue with the inbox and the
// Redis early skip, Prometheus metrics, readiness checks, and the shutdown order:
// stop consuming (drain in-flight handlers) -> flush the fast path -> close broker -> close pools.
import type { SqlTx } from "@orderflow/db";
import {
  type Consumer,
  createBrokerConnection,
  createRedisDedupCache,
  type DedupCache,
  type Handlers,
  type Outcome,
  startConsumer,
} from "@orderflow/messaging";
import {
  createConfirmPublisher,
  createOutboxMetrics,
  createRelay,
  type Log,
  type OutgoingMessage,
  type Relay,
  type RelayConfig,
  type RunTransaction,
  withOutbox,
} from "@orderflow/outbox";
import pg from "pg";
import { Counter, collectDefaultMetrics, Registry } from "prom-client";
import { type LabSwitches, labConsumerPitfalls, NO_LAB } from "./lab.ts";
import { limitConcurrency } from "./limit.ts";
import { shutdownStep } from "./shutdown.ts";

export interface RuntimeOptions<Tx extends SqlTx> {
  service: string;
  databaseUrl: string;
  amqpUrls: string[];
  redisUrl: string | undefined;
  /** This service's work queue and the handlers for the event types bound to it. */
  queue: string;
  handlers: Handlers;
  /** The service's way to open a transaction, e.g. `(fn) => prisma.$transaction(fn)` (the HTTP path). */
  transaction: RunTransaction<Tx>;
  /** The consumer's, on a pool of its own so a burst of deliveries cannot starve the HTTP path. */
  consumerTransaction: RunTransaction<Tx>;
  /** How many consumer transactions run at once (the rest wait their turn in process). Default 4. */
  consumerConcurrency?: number;
  log: Log;
  /** Inbox retention; must outlive the redelivery horizon (checked by the consumer at start). */
  inboxRetentionMs: number;
  relayMaxBackoffMs: number;
  reconciliationPeriodMs: number;
  relay?: Partial<RelayConfig>;
  /** Consumer prefetch; the messaging default (100) suits quorum queues. */
  prefetch?: number;
  /** The fault lab's switches (lab.ts); NO_LAB unless ORDERFLOW_LAB_PITFALL is set. */
  lab?: LabSwitches;
}

export interface ServiceRuntime<Tx extends SqlTx> {
  metrics: Registry;
  relay: Relay;
  consumer: Consumer;
  /** Runs `work` in a transaction with an outbox bound to it; after commit the fast path publishes. */
  inTransaction<T>(
    work: (tx: Tx, enqueue: Parameters<Parameters<typeof withOutbox>[2]>[1]) => Promise<T>,
  ): Promise<T>;
  readiness: Record<string, () => Promise<boolean>>;
  shutdown(): Promise<void>;
  /**
   * FAULT LAB ONLY (publish-before-commit): publishes straight to the broker, bypassing the outbox,
   * and waits for the broker's confirm. Throws when the broker did not confirm.
   */
  labPublishNow(message: OutgoingMessage): Promise<void>;
}

export async function startServiceRuntime<Tx extends SqlTx>(
  opts: RuntimeOptions<Tx>,
): Promise<ServiceRuntime<Tx>> {
  const lab = opts.lab ?? NO_LAB;
  const consumerPitfalls = labConsumerPitfalls(lab);
  const metrics = new Registry();
  metrics.setDefaultLabels({ service: opts.service });
  collectDefaultMetrics({ register: metrics });

  // The relay's own pool: the HTTP path's pool (Prisma's) can be saturated without delaying publishes.
  const relayPool = new pg.Pool({
    connectionString: opts.databaseUrl,
    max: 4,
    application_name: `${opts.service}-relay`,
  });
  relayPool.on("error", (e) => opts.log("warn", "relay_pool.error", { error: e.message }));
  const outboxMetrics = createOutboxMetrics({ registry: metrics, pool: relayPool });
  const publisher = createConfirmPublisher({
    urls: opts.amqpUrls,
    exchange: "orderflow.events",
    log: opts.log,
    onWindow: (n) => outboxMetrics.confirmWindow.set(n),
  });
  // The dedicated relay process sweeps every second; this in-process relay exists for the fast path and
  // sweeps slowly as a second line.
  const relay = createRelay({
    pool: relayPool,
    publisher,
    log: opts.log,
    metrics: outboxMetrics,
    config: {
      pollIntervalMs: 5_000,
      ...opts.relay,
      ...(lab.pitfall === "no-claim-cas" ? { labNaiveClaim: true } : {}),
    },
  });
  relay.start();

  const connection = createBrokerConnection({
    urls: opts.amqpUrls,
    name: `${opts.service}-consumer`,
    log: opts.log,
  });
  // The naive consumer (lab) has no Redis early skip either: no deduplication at all.
  const dedupCache: DedupCache | undefined =
    opts.redisUrl && lab.pitfall !== "no-consumer-dedup"
      ? createRedisDedupCache({ url: opts.redisUrl, ttlMs: opts.inboxRetentionMs, log: opts.log })
      : undefined;
  const outcomes = new Counter({
    name: "consumer_messages_total",
    help: "Messages handled by this service's consumer, by outcome (done, rejected, duplicate, retried, parked...)",
    labelNames: ["queue", "outcome", "type"],
    registers: [metrics],
  });
  const slot = limitConcurrency(opts.consumerConcurrency ?? 4);
  const limited: RunTransaction<Tx> = (fn) => slot(() => opts.consumerTransaction(fn));
  await connection.ready(30_000);
  const consumer = await startConsumer({
    connection,
    queue: opts.queue,
    consumerName: opts.service,
    handlers: opts.handlers,
    transaction: limited as unknown as <T>(fn: (tx: SqlTx) => Promise<T>) => Promise<T>,
    retention: {
      retentionMs: opts.inboxRetentionMs,
      relayMaxBackoffMs: opts.relayMaxBackoffMs,
      reconciliationPeriodMs: opts.reconciliationPeriodMs,
    },
    ...(dedupCache ? { dedupCache } : {}),
    ...(opts.prefetch ? { prefetch: opts.prefetch } : {}),
    log: opts.log,
    ...(consumerPitfalls ? { lab: consumerPitfalls } : {}),
    onOutcome: (o: Outcome) => {
      outcomes.inc({ queue: opts.queue, outcome: o.kind, type: "type" in o ? o.type : "" });
      // A handler's reply events were enqueued in the consumer's transaction, which has committed by now:
      // wake the relay so they leave at once instead of waiting for the next sweep (the fast path for
      // events written by consumers; pnpm bench measured 0.5-1 s per saga hop without it).
      if (o.kind === "done" || o.kind === "rejected") relay.wake();
    },
  });

  const step = (name: string, fn: () => Promise<unknown>) => shutdownStep(opts.log, name, fn);
  let shuttingDown: Promise<void> | undefined;
  return {
    metrics,
    relay,
    consumer,
    inTransaction: (work) => withOutbox(opts.transaction, (ids) => relay.afterCommit(ids), work),
    readiness: {
      database: async () => {
        await relayPool.query("SELECT 1");
        return true;
      },
      broker: async () => connection.health().connected && publisher.isConnected(),
    },
    labPublishNow: async (message) => {
      const [outcome] = await publisher.publishBatch([message]);
      if (outcome?.status !== "confirmed")
        throw new Error(`lab publish not confirmed: ${JSON.stringify(outcome)}`);
    },
    shutdown: () => {
      shuttingDown ??= (async () => {
        await step("consumer.stop", () => consumer.stop());
        await step("relay.stop", () => relay.stop(10_000));
        await step("publisher.close", () => publisher.close());
        await step("connection.close", () => connection.close());
        await step("dedup_cache.close", async () => dedupCache?.close());
        await step("relay_pool.end", () => relayPool.end());
      })();
      return shuttingDown;
    },
  };
}

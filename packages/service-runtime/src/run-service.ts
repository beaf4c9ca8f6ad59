// The whole life of a service process, the same for order, inventory and points: check dependencies
// (naming the one that is missing), migrate, warm the Prisma client, start the runtime (relay fast path,
// consumer), serve HTTP, and on SIGTERM/SIGINT: stop HTTP intake, stop the service's own jobs, stop
// consuming and drain, flush the fast path, close the broker, close the database.
import type { EventType } from "@orderflow/contracts";
import { doneOnConfirm } from "@orderflow/contracts";
import type { RunExclusive, SqlTx } from "@orderflow/db";
import { createBaseApp } from "@orderflow/http";
import { createLogger, type Logger } from "@orderflow/logging";
import { startTracing } from "@orderflow/telemetry";
import type { FastifyInstance } from "fastify";
import { checkBroker, checkDatabase } from "./dependencies.ts";
import type { CommonEnv } from "./env-parse.ts";
import { migrateService } from "./migrations.ts";
import type { ServiceParts, Subscriptions } from "./parts.ts";
import type { ServiceDatabase } from "./prisma-database.ts";
import { type ServiceRuntime, startServiceRuntime } from "./runtime.ts";
import { onShutdownSignals, shutdownStep } from "./shutdown.ts";
import { sqlDatabase } from "./sql-database.ts";

/** A service's work queue: the steps for the event types bound to it, and the event types it publishes. */
export interface WorkQueue {
  queue: string;
  /** Run in the consumer's transaction (plain SQL, see sql-database.ts). */
  subscriptions: Subscriptions<SqlTx>;
  publishes: readonly EventType[];
}

export interface ServiceDefinition<Db, Tx extends SqlTx> {
  /** Its name; its variables' prefix is the name in capitals (INVENTORY_DATABASE_URL). */
  service: string;
  env: CommonEnv;
  migrationsDir: string;
  workQueue: WorkQueue;
  database: ServiceDatabase<Db, Tx>;
  /**
   * Longest period after which a reconciliation job may re-send an event (inbox retention must exceed it).
   * Default 10 min: a service that re-sends only when the order service's reconciliation asks it to.
   */
  reconciliationPeriodMs?: number;
  /** Registers its routes; returns the jobs it started, if any, to stop on shutdown. */
  routes: (
    app: FastifyInstance,
    deps: {
      db: Db;
      runtime: ServiceRuntime<Tx>;
      log: Logger;
      /** For the jobs it starts: one instance at a time across every instance of the service. */
      exclusive: RunExclusive;
    },
  ) => { stop(): void } | undefined;
  /** The parts the service is composed of; omitted in production (every protection on). */
  parts?: ServiceParts;
}

const PEER_RECONCILIATION_PERIOD_MS = 10 * 60_000;

export async function runService<Db, Tx extends SqlTx>(def: ServiceDefinition<Db, Tx>): Promise<void> {
  const { env, database, workQueue } = def;
  const envPrefix = def.service.toUpperCase();
  const log = createLogger({ name: def.service, level: env.logLevel });
  // First, so the fast path's publishes, the consumer's deliveries and the HTTP routes are all traced.
  const tracing = await startTracing(env.telemetry, { serviceName: def.service }, log);
  await checkDatabase(env.databaseUrl, `${envPrefix}_DATABASE_URL`);
  await checkBroker(env.amqpUrls, `${envPrefix}_AMQP_URLS`);
  const migrated = await migrateService(env.databaseUrl, def.migrationsDir);
  if (migrated.applied.length > 0) log.info({ names: migrated.applied }, "migrations.applied");

  const db = database.createDb(env.databaseUrl);
  await database.warm(db);
  // Plain SQL on node-postgres for the hot paths: the consumer's pool, and one for the HTTP routes'
  // one-statement writes (writeWithEvents). node-postgres opens connections on demand.
  const consumerDb = sqlDatabase(env.databaseUrl, log, { name: "consumer", max: 4 });
  const httpSql = sqlDatabase(env.databaseUrl, log, { name: "http_sql", max: 10 });
  const runtime = await startServiceRuntime<Tx>({
    service: def.service,
    databaseUrl: env.databaseUrl,
    amqpUrls: env.amqpUrls,
    redisUrl: env.redisUrl,
    queue: workQueue.queue,
    subscriptions: workQueue.subscriptions,
    transaction: database.transaction(db),
    consumerTransaction: consumerDb.transaction,
    sqlAutocommit: httpSql.autocommit,
    consumerBatchSize: env.consumerBatchSize,
    consumerConcurrency: env.consumerConcurrency,
    log,
    inboxRetentionMs: env.inboxRetentionMs,
    relayMaxBackoffMs: env.relayMaxBackoffMs,
    reconciliationPeriodMs: def.reconciliationPeriodMs ?? PEER_RECONCILIATION_PERIOD_MS,
    // Events no reply answers are done as soon as the broker confirms them (contracts' REPLIES).
    relay: { doneOnConfirm: doneOnConfirm(workQueue.publishes) },
    ...(def.parts ? { parts: def.parts } : {}),
  });
  const app = await createBaseApp({
    service: def.service,
    metrics: runtime.metrics,
    readiness: runtime.readiness,
    logger: log,
    adminToken: env.adminToken,
  });
  const jobs = def.routes(app, { db, runtime, log, exclusive: httpSql.exclusive });
  await app.listen({ host: env.host, port: env.port });
  log.info({ url: `http://${env.host}:${env.port}` }, "service.listening");

  onShutdownSignals(
    async () => {
      await shutdownStep(log, "http.close", () => app.close());
      jobs?.stop();
      await runtime.shutdown();
      await database.disconnect(db);
      await shutdownStep(log, "consumer_pool.close", () => consumerDb.close());
      await shutdownStep(log, "http_sql_pool.close", () => httpSql.close());
      // Last: the spans of what was drained above are exported before the process exits.
      await shutdownStep(log, "tracing.shutdown", () => tracing.shutdown());
    },
    { log },
  );
}

/** For main.ts: runs the service, or prints why it could not start and exits 1. */
export function main<Db, Tx extends SqlTx>(def: () => ServiceDefinition<Db, Tx>): void {
  Promise.resolve()
    .then(() => runService(def()))
    .catch((e: unknown) => {
      process.stderr.write(`service failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    });
}

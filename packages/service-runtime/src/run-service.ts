// The whole life of a service process, the same for order, inventory and points: check dependencies
// (naming the one that is missing), migrate, warm the Prisma client, start the runtime (relay fast path,
// consumer), serve HTTP, and on SIGTERM/SIGINT: stop HTTP intake, stop the service's own jobs, stop
// consuming and drain, flush the fast path, close the broker, close the database.
import type { EventType } from "@orderflow/contracts";
import { doneOnConfirm } from "@orderflow/contracts";
import type { RunTransaction, SqlTx } from "@orderflow/db";
import { createBaseApp } from "@orderflow/http";
import { createLogger, type Logger } from "@orderflow/logging";
import { startTracing } from "@orderflow/telemetry";
import type { FastifyInstance } from "fastify";
import { checkBroker, checkDatabase } from "./dependencies.ts";
import type { CommonEnv } from "./env-parse.ts";
import { migrateService } from "./migrations.ts";
import type { ServiceParts, Subscriptions } from "./parts.ts";
import { type ServiceRuntime, startServiceRuntime } from "./runtime.ts";
import { onShutdownSignals, shutdownStep } from "./shutdown.ts";
import { sqlDatabase } from "./sql-database.ts";

export interface ServiceDefinition<Db, Tx extends SqlTx> {
  service: string;
  /** The env variable prefix, for error messages: ORDER -> ORDER_DATABASE_URL. */
  envPrefix: string;
  env: CommonEnv;
  migrationsDir: string;
  /** The work queue, the steps bound to it, and the event types this service publishes. */
  queue: string;
  /** Run in the consumer's transaction (plain SQL, see sql-database.ts). */
  subscriptions: Subscriptions<SqlTx>;
  publishes: readonly EventType[];
  createDb: (url: string) => Db;
  transaction: (db: Db) => RunTransaction<Tx>;
  disconnect: (db: Db) => Promise<void>;
  /** Pays the client's one-time costs before the service listens (prisma-database.ts says why). */
  warm: (db: Db) => Promise<void>;
  /** Longest period after which a reconciliation job may re-send an event (inbox retention must exceed it). */
  reconciliationPeriodMs: number;
  routes: (
    app: FastifyInstance,
    deps: { db: Db; runtime: ServiceRuntime<Tx>; log: Logger },
  ) => { stop(): void } | undefined;
  /** The parts the service is composed of; omitted in production (every protection on). */
  parts?: ServiceParts;
}

export async function runService<Db, Tx extends SqlTx>(def: ServiceDefinition<Db, Tx>): Promise<void> {
  const { env } = def;
  const log = createLogger({ name: def.service, level: env.logLevel });
  // First, so the fast path's publishes, the consumer's deliveries and the HTTP routes are all traced.
  const tracing = await startTracing(env.telemetry, { serviceName: def.service }, log);
  await checkDatabase(env.databaseUrl, `${def.envPrefix}_DATABASE_URL`);
  await checkBroker(env.amqpUrls, `${def.envPrefix}_AMQP_URLS`);
  const migrated = await migrateService(env.databaseUrl, def.migrationsDir);
  if (migrated.applied.length > 0) log.info({ names: migrated.applied }, "migrations.applied");

  const db = def.createDb(env.databaseUrl);
  await def.warm(db);
  // Plain SQL on node-postgres for the hot paths: the consumer's pool, and one for the HTTP routes that
  // ask for it (inSqlTransaction). node-postgres opens connections on demand: unused, it costs nothing.
  const consumerDb = sqlDatabase(env.databaseUrl, log, { name: "consumer", max: 4 });
  const httpSql = sqlDatabase(env.databaseUrl, log, { name: "http_sql", max: 10 });
  const runtime = await startServiceRuntime<Tx>({
    service: def.service,
    databaseUrl: env.databaseUrl,
    amqpUrls: env.amqpUrls,
    redisUrl: env.redisUrl,
    queue: def.queue,
    subscriptions: def.subscriptions,
    transaction: def.transaction(db),
    consumerTransaction: consumerDb.transaction,
    sqlTransaction: httpSql.transaction,
    sqlAutocommit: httpSql.autocommit,
    consumerBatchSize: env.consumerBatchSize,
    consumerConcurrency: env.consumerConcurrency,
    log,
    inboxRetentionMs: env.inboxRetentionMs,
    relayMaxBackoffMs: env.relayMaxBackoffMs,
    reconciliationPeriodMs: def.reconciliationPeriodMs,
    // Events no reply answers are done as soon as the broker confirms them (contracts' REPLIES).
    relay: { doneOnConfirm: doneOnConfirm(def.publishes) },
    ...(def.parts ? { parts: def.parts } : {}),
  });
  const app = await createBaseApp({
    service: def.service,
    metrics: runtime.metrics,
    readiness: runtime.readiness,
    logger: log,
    adminToken: env.adminToken,
  });
  const jobs = def.routes(app, { db, runtime, log });
  await app.listen({ host: env.host, port: env.port });
  log.info({ url: `http://${env.host}:${env.port}` }, "service.listening");

  onShutdownSignals(
    async () => {
      await shutdownStep(log, "http.close", () => app.close());
      jobs?.stop();
      await runtime.shutdown();
      await def.disconnect(db);
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

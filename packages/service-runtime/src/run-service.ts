// The whole life of a service process, the same for order, inventory and points: check dependencies
// (naming the one that is missing), migrate, start the runtime (relay fast path, consumer), serve HTTP,
// and on SIGTERM/SIGINT: stop HTTP intake, stop the service's own jobs, stop consuming and drain,
// flush the fast path, close the broker, close the database.
import type { SqlTx } from "@orderflow/db";
import { createBaseApp } from "@orderflow/http";
import type { Handlers } from "@orderflow/messaging";
import { jsonLog, type Log, type LogLevel, type RunTransaction } from "@orderflow/outbox";
import type { FastifyInstance } from "fastify";
import { checkBroker, checkDatabase } from "./dependencies.ts";
import type { LabSwitches } from "./lab.ts";
import { migrateService } from "./migrations.ts";
import { type ServiceRuntime, startServiceRuntime } from "./runtime.ts";
import { onShutdownSignals, shutdownStep } from "./shutdown.ts";

export interface CommonEnv {
  host: string;
  port: number;
  databaseUrl: string;
  amqpUrls: string[];
  redisUrl: string | undefined;
  logLevel: string;
  inboxRetentionMs: number;
  relayMaxBackoffMs: number;
  /** The fault lab's switches; every protection on unless the lab sets ORDERFLOW_LAB_PITFALL. */
  lab: LabSwitches;
}

export interface ServiceDefinition<Db, Tx extends SqlTx> {
  service: string;
  /** The env variable prefix, for error messages: ORDER -> ORDER_DATABASE_URL. */
  envPrefix: string;
  env: CommonEnv;
  migrationsDir: string;
  queue: string;
  handlers: Handlers;
  createDb: (url: string) => Db;
  transaction: (db: Db) => RunTransaction<Tx>;
  disconnect: (db: Db) => Promise<void>;
  /** Event types this service publishes that no reply answers: done as soon as the broker confirms. */
  doneOnConfirm?: readonly string[];
  /** Longest period after which a reconciliation job may re-send an event (inbox retention must exceed it). */
  reconciliationPeriodMs: number;
  routes: (
    app: FastifyInstance,
    deps: { db: Db; runtime: ServiceRuntime<Tx>; log: Log },
  ) => { stop(): void } | undefined;
}

export async function runService<Db, Tx extends SqlTx>(def: ServiceDefinition<Db, Tx>): Promise<void> {
  const { env } = def;
  const log = jsonLog({ name: def.service, level: env.logLevel as LogLevel });
  if (env.lab.pitfall || env.lab.rollbackRate)
    log("warn", "FAULT LAB SWITCH ON: a protection is off on purpose; never run this in production", {
      pitfall: env.lab.pitfall ?? null,
      rollbackRate: env.lab.rollbackRate,
    });
  await checkDatabase(env.databaseUrl, `${def.envPrefix}_DATABASE_URL`);
  await checkBroker(env.amqpUrls, `${def.envPrefix}_AMQP_URLS`);
  const migrated = await migrateService(env.databaseUrl, def.migrationsDir);
  if (migrated.applied.length > 0) log("info", "migrations.applied", { names: migrated.applied });

  const db = def.createDb(env.databaseUrl);
  const consumerDb = def.createDb(env.databaseUrl);
  const runtime = await startServiceRuntime<Tx>({
    service: def.service,
    databaseUrl: env.databaseUrl,
    amqpUrls: env.amqpUrls,
    redisUrl: env.redisUrl,
    queue: def.queue,
    handlers: def.handlers,
    transaction: def.transaction(db),
    consumerTransaction: def.transaction(consumerDb),
    log,
    inboxRetentionMs: env.inboxRetentionMs,
    relayMaxBackoffMs: env.relayMaxBackoffMs,
    reconciliationPeriodMs: def.reconciliationPeriodMs,
    relay: { doneOnConfirm: def.doneOnConfirm ?? [] },
    lab: env.lab,
  });
  const app = await createBaseApp({
    service: def.service,
    metrics: runtime.metrics,
    readiness: runtime.readiness,
    logger: { level: env.logLevel },
  });
  const jobs = def.routes(app, { db, runtime, log });
  await app.listen({ host: env.host, port: env.port });
  log("info", "service.listening", { url: `http://${env.host}:${env.port}` });

  onShutdownSignals(
    async () => {
      await shutdownStep(log, "http.close", () => app.close());
      jobs?.stop();
      await runtime.shutdown();
      await def.disconnect(db);
      await def.disconnect(consumerDb);
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

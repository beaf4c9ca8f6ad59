// The order service process: check dependencies, migrate, start the runtime (relay fast path, consumer),
// serve HTTP, reconcile on a schedule, and shut down in order on SIGTERM/SIGINT.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { jsonLog, type LogLevel } from "@orderflow/outbox";
import {
  checkBroker,
  checkDatabase,
  migrateService,
  onShutdownSignals,
  startServiceRuntime,
} from "@orderflow/service-runtime";
import { buildApp } from "./app.ts";
import { createDb, type Tx } from "./db.ts";
import { readEnv } from "./env.ts";
import { QUEUE } from "./events.ts";
import { orderHandlers } from "./handlers.ts";
import { startReconciliation } from "./reconcile/schedule.ts";

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../prisma/migrations");

async function main(): Promise<void> {
  const env = readEnv();
  const log = jsonLog({ name: "order", level: env.logLevel as LogLevel });
  await checkDatabase(env.databaseUrl, "ORDER_DATABASE_URL");
  await checkBroker(env.amqpUrls, "ORDER_AMQP_URLS");
  const migrated = await migrateService(env.databaseUrl, MIGRATIONS);
  if (migrated.applied.length > 0) log("info", "migrations.applied", { names: migrated.applied });

  const db = createDb(env.databaseUrl);
  const runtime = await startServiceRuntime<Tx>({
    service: "order",
    databaseUrl: env.databaseUrl,
    amqpUrls: env.amqpUrls,
    redisUrl: env.redisUrl,
    queue: QUEUE,
    handlers: orderHandlers(),
    transaction: (fn) => db.$transaction(fn, { maxWait: 10_000, timeout: 15_000 }),
    log,
    inboxRetentionMs: env.inboxRetentionMs,
    relayMaxBackoffMs: env.relayMaxBackoffMs,
    reconciliationPeriodMs: env.reconcile.intervalMs + env.reconcile.staleAfterMs,
  });
  const reconciliation = startReconciliation({ db, runtime, env, log, metrics: runtime.metrics });
  const app = await buildApp({
    db,
    runtime,
    reconciliation,
    metrics: runtime.metrics,
    readiness: runtime.readiness,
    logger: { level: env.logLevel },
  });
  await app.listen({ host: env.host, port: env.port });
  log("info", "order.listening", { url: `http://${env.host}:${env.port}` });

  onShutdownSignals(
    async () => {
      await app.close(); // stop HTTP intake first
      reconciliation.stop();
      await runtime.shutdown(); // stop consuming, drain, flush the fast path, close the broker
      await db.$disconnect();
    },
    { log },
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`order service failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});

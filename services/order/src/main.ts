// The order service process (see @orderflow/service-runtime's runService for the start/stop order).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "@orderflow/service-runtime";
import { createDb, type Db, type Tx } from "./db.ts";
import { readEnv } from "./env.ts";
import { QUEUE } from "./events.ts";
import { orderHandlers } from "./handlers.ts";
import { startReconciliation } from "./reconcile/schedule.ts";
import { registerOrderRoutes } from "./routes.ts";

main<Db, Tx>(() => {
  const env = readEnv();
  return {
    service: "order",
    envPrefix: "ORDER",
    env,
    migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../prisma/migrations"),
    queue: QUEUE,
    // Every event the order service publishes is answered by a reply (contracts' REPLIES), which marks
    // its row done: none is done on confirm alone (doneOnConfirm stays empty).
    handlers: orderHandlers(),
    createDb: (url) => createDb(url),
    transaction: (db) => (fn) => db.$transaction(fn, { maxWait: 10_000, timeout: 15_000 }),
    disconnect: (db) => db.$disconnect(),
    reconciliationPeriodMs: env.reconcile.intervalMs + env.reconcile.staleAfterMs,
    routes: (app, { db, runtime, log }) => {
      const reconciliation = startReconciliation({ db, runtime, env, log, metrics: runtime.metrics });
      const lab =
        env.lab.pitfall === "publish-before-commit" || env.lab.rollbackRate > 0
          ? {
              rollbackRate: env.lab.rollbackRate,
              ...(env.lab.pitfall === "publish-before-commit" ? { publishNow: runtime.labPublishNow } : {}),
            }
          : undefined;
      registerOrderRoutes(app, { db, runtime, reconciliation, ...(lab ? { lab } : {}) });
      return reconciliation;
    },
  };
});

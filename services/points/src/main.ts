// The points service process (see @orderflow/service-runtime's runService for the start/stop order).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { doneOnConfirm } from "@orderflow/contracts";
import { main } from "@orderflow/service-runtime";
import { createDb, type Db, type Tx } from "./db.ts";
import { readEnv } from "./env.ts";
import { PUBLISHES, QUEUE } from "./events.ts";
import { pointsHandlers } from "./handlers.ts";
import { registerPointsRoutes } from "./routes.ts";

main<Db, Tx>(() => {
  const env = readEnv();
  return {
    service: "points",
    envPrefix: "POINTS",
    env,
    migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../prisma/migrations"),
    queue: QUEUE,
    // No reply answers what this service publishes: each row is done once the broker confirms it.
    doneOnConfirm: doneOnConfirm(PUBLISHES),
    // The fault lab's naive consumer drops the handlers' state guards too (ORDERFLOW_LAB_PITFALL).
    handlers: pointsHandlers({ naive: env.lab.pitfall === "no-consumer-dedup" }),
    createDb: (url) => createDb(url),
    transaction: (db) => (fn) => db.$transaction(fn, { maxWait: 10_000, timeout: 15_000 }),
    disconnect: (db) => db.$disconnect(),
    // Points re-sends events only when the order service's reconciliation asks it to.
    reconciliationPeriodMs: 10 * 60_000,
    routes: (app, deps) => {
      registerPointsRoutes(app, deps);
      return undefined;
    },
  };
});

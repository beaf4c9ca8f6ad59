// The points service, composed: its queue and steps, its database, its routes. main.ts runs it with
// every protection on; the fault lab runs it with other parts (see @orderflow/service-runtime parts.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CommonEnv,
  prismaDatabase,
  type ServiceDefinition,
  type ServiceParts,
} from "@orderflow/service-runtime";
import { createDb, type Db, type Tx } from "./db.ts";
import { registerPointsRoutes } from "./routes.ts";
import { PUBLISHES, QUEUE, SUBSCRIPTIONS } from "./subscriptions.ts";

/** Its Prisma-format migrations (the tables of this service; the outbox and inbox come with their packages). */
export const MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../prisma/migrations",
);

export function pointsService(env: CommonEnv, parts?: ServiceParts): ServiceDefinition<Db, Tx> {
  return {
    service: "points",
    envPrefix: "POINTS",
    env,
    migrationsDir: MIGRATIONS_DIR,
    queue: QUEUE,
    subscriptions: SUBSCRIPTIONS,
    publishes: PUBLISHES,
    ...prismaDatabase<Db, Tx>((url) => createDb(url)),
    // Points re-sends events only when the order service's reconciliation asks it to.
    reconciliationPeriodMs: 10 * 60_000,
    routes: (app, deps) => {
      registerPointsRoutes(app, deps);
      return undefined;
    },
    ...(parts ? { parts } : {}),
  };
}

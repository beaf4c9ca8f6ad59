// The order service, composed: its queue and steps, its database, its routes and its reconciliation.
// main.ts runs it with every protection on; the fault lab runs it with other parts
// (see @orderflow/service-runtime parts.ts).
import { migrationsDirOf, type ServiceDefinition, type ServiceParts } from "@orderflow/service-runtime";
import { type Db, database, type Tx } from "./db.ts";
import type { OrderEnv } from "./env.ts";
import { createFinalLatency } from "./final-latency.ts";
import { startReconciliation } from "./reconcile/schedule.ts";
import { registerOrderRoutes } from "./routes.ts";
import { orderSubscriptions, PUBLISHES, QUEUE } from "./subscriptions.ts";

/** Its Prisma-format migrations (the tables of this service; the outbox and inbox come with their packages). */
export const MIGRATIONS_DIR = migrationsDirOf(import.meta.url);

/** The order service's own part besides the common ones. */
export interface OrderParts extends ServiceParts {
  /**
   * Whether reconciliation runs on its schedule (RECONCILE_INTERVAL_MS). Default: yes. Without it a stuck
   * order is found only when an operator asks (POST /admin/reconcile).
   */
  scheduledReconciliation?: boolean;
}

export function orderService(env: OrderEnv, parts?: OrderParts): ServiceDefinition<Db, Tx> {
  const { scheduledReconciliation = true, ...serviceParts } = parts ?? {};
  const finalLatency = createFinalLatency();
  return {
    service: "order",
    env,
    migrationsDir: MIGRATIONS_DIR,
    workQueue: {
      queue: QUEUE,
      subscriptions: orderSubscriptions(finalLatency),
      // Every event the order service publishes is answered by a reply (contracts' REPLIES), which marks
      // its row done: none is done on confirm alone.
      publishes: PUBLISHES,
    },
    database,
    reconciliationPeriodMs: env.reconcile.intervalMs + env.reconcile.staleAfterMs,
    routes: (app, { db, runtime, log, exclusive }) => {
      finalLatency.register(runtime.metrics);
      const reconciliation = startReconciliation({
        db,
        runtime,
        env,
        log,
        metrics: runtime.metrics,
        schedule: scheduledReconciliation,
        exclusive,
      });
      registerOrderRoutes(app, { db, runtime, reconciliation });
      return reconciliation;
    },
    ...(parts ? { parts: serviceParts } : {}),
  };
}

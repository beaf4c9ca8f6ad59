// The only reader of the environment in the order service (see .env.example for each variable).
import { int, list, url } from "@orderflow/config";
import { type CommonEnv, type RawEnv, readCommonEnv } from "@orderflow/service-runtime";

export interface OrderEnv extends CommonEnv {
  /**
   * Base URLs the reconciliation job asks for the other services' view of an order: one per instance
   * (comma-separated), tried in turn when one does not answer.
   */
  inventoryUrls: string[];
  pointsUrls: string[];
  reconcile: { intervalMs: number; staleAfterMs: number; batchSize: number; maxRepairs: number };
}

export function readEnv(env: RawEnv = process.env): OrderEnv {
  const { reconcileIntervalMs, reconcileStaleAfterMs, reconcileBatchSize, reconcileMaxRepairs, ...rest } =
    readCommonEnv(env, "ORDER", 3001, {
      inventoryUrls: list("INVENTORY_URL", url("", ["http:", "https:"])).default(["http://127.0.0.1:3002"]),
      pointsUrls: list("POINTS_URL", url("", ["http:", "https:"])).default(["http://127.0.0.1:3003"]),
      reconcileIntervalMs: int("RECONCILE_INTERVAL_MS", { min: 0 }).default(60_000),
      reconcileStaleAfterMs: int("RECONCILE_STALE_AFTER_MS", { min: 0 }).default(5 * 60_000),
      reconcileBatchSize: int("RECONCILE_BATCH_SIZE", { min: 1 }).default(100),
      reconcileMaxRepairs: int("RECONCILE_MAX_REPAIRS", { min: 1 }).default(3),
    });
  return {
    ...rest,
    reconcile: {
      intervalMs: reconcileIntervalMs,
      staleAfterMs: reconcileStaleAfterMs,
      batchSize: reconcileBatchSize,
      maxRepairs: reconcileMaxRepairs,
    },
  };
}

// The only reader of the environment in the order service (see .env.example for each variable).
import { type CommonEnv, int, optional, type RawEnv, readCommonEnv } from "@orderflow/service-runtime";

export interface OrderEnv extends CommonEnv {
  /** Base URLs the reconciliation job asks for the other services' view of an order. */
  inventoryUrl: string;
  pointsUrl: string;
  reconcile: { intervalMs: number; staleAfterMs: number; batchSize: number };
}

export function readEnv(env: RawEnv = process.env): OrderEnv {
  return {
    ...readCommonEnv(env, "ORDER", 3001),
    inventoryUrl: optional(env, "INVENTORY_URL") ?? "http://127.0.0.1:3002",
    pointsUrl: optional(env, "POINTS_URL") ?? "http://127.0.0.1:3003",
    reconcile: {
      intervalMs: int(env, "RECONCILE_INTERVAL_MS", 60_000),
      staleAfterMs: int(env, "RECONCILE_STALE_AFTER_MS", 5 * 60_000),
      batchSize: int(env, "RECONCILE_BATCH_SIZE", 100),
    },
  };
}

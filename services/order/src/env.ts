// The only reader of the environment in the order service (see .env.example for each variable).
import {
  type CommonEnv,
  int,
  list,
  optional,
  type RawEnv,
  readLabSwitches,
  required,
} from "@orderflow/service-runtime";

export interface OrderEnv extends CommonEnv {
  /** Base URLs the reconciliation job asks for the other services' view of an order. */
  inventoryUrl: string;
  pointsUrl: string;
  reconcile: { intervalMs: number; staleAfterMs: number; batchSize: number };
}

export function readEnv(env: RawEnv = process.env): OrderEnv {
  return {
    host: optional(env, "ORDER_HOST") ?? "127.0.0.1",
    port: int(env, "ORDER_PORT", 3001),
    databaseUrl: required(env, "ORDER_DATABASE_URL"),
    amqpUrls: list(env, "ORDER_AMQP_URLS"),
    redisUrl: optional(env, "REDIS_URL"),
    inventoryUrl: optional(env, "INVENTORY_URL") ?? "http://127.0.0.1:3002",
    pointsUrl: optional(env, "POINTS_URL") ?? "http://127.0.0.1:3003",
    logLevel: optional(env, "LOG_LEVEL") ?? "info",
    inboxRetentionMs: int(env, "INBOX_RETENTION_MS", 7 * 24 * 3_600_000),
    relayMaxBackoffMs: int(env, "OUTBOX_MAX_BACKOFF_MS", 2 * 3_600_000),
    // The fault lab's switches (load-tests/src/fault); unset, every protection is on.
    lab: readLabSwitches(env),
    reconcile: {
      intervalMs: int(env, "RECONCILE_INTERVAL_MS", 60_000),
      staleAfterMs: int(env, "RECONCILE_STALE_AFTER_MS", 5 * 60_000),
      batchSize: int(env, "RECONCILE_BATCH_SIZE", 100),
    },
  };
}

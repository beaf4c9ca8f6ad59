// The only reader of the environment in the inventory service (see .env.example for each variable).
import {
  type CommonEnv,
  int,
  list,
  optional,
  type RawEnv,
  readLabSwitches,
  required,
} from "@orderflow/service-runtime";

export function readEnv(env: RawEnv = process.env): CommonEnv {
  return {
    host: optional(env, "INVENTORY_HOST") ?? "127.0.0.1",
    port: int(env, "INVENTORY_PORT", 3002),
    databaseUrl: required(env, "INVENTORY_DATABASE_URL"),
    amqpUrls: list(env, "INVENTORY_AMQP_URLS"),
    redisUrl: optional(env, "REDIS_URL"),
    logLevel: optional(env, "LOG_LEVEL") ?? "info",
    inboxRetentionMs: int(env, "INBOX_RETENTION_MS", 7 * 24 * 3_600_000),
    relayMaxBackoffMs: int(env, "OUTBOX_MAX_BACKOFF_MS", 2 * 3_600_000),
    // The fault lab's switches (load-tests/src/fault); unset, every protection is on.
    lab: readLabSwitches(env),
  };
}

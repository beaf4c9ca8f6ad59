// The variables every service reads, under its prefix (ORDER_PORT, ORDER_DATABASE_URL, ...), checked by
// @orderflow/config: a service that cannot start names every bad variable at once. Each service's env.ts
// is the only place that passes process.env in.
import {
  ConfigError,
  type EnvSchema,
  type EnvValues,
  int,
  type LogLevel,
  list,
  logLevel,
  port,
  type RawEnv,
  readEnv,
  str,
  token,
  url,
} from "@orderflow/config";
import { readTelemetryEnv, type TelemetryEnv } from "@orderflow/telemetry";

export type { RawEnv };

export interface CommonEnv {
  host: string;
  port: number;
  databaseUrl: string;
  amqpUrls: string[];
  redisUrl: string | undefined;
  /** Bearer token of the /admin routes (unset: they refuse every request). */
  adminToken: string | undefined;
  logLevel: LogLevel;
  inboxRetentionMs: number;
  relayMaxBackoffMs: number;
  /** Most messages one consumer transaction applies (1 = one message per transaction). */
  consumerBatchSize: number;
  /** Consumer transactions running at once. */
  consumerConcurrency: number;
  /** The standard OTEL_* variables: tracing is on when an OTLP endpoint is set. */
  telemetry: TelemetryEnv;
}

function commonSchema(prefix: string, defaultPort: number) {
  return {
    host: str(`${prefix}_HOST`).default("127.0.0.1"),
    port: port(`${prefix}_PORT`).default(defaultPort),
    databaseUrl: url(`${prefix}_DATABASE_URL`, ["postgres:", "postgresql:"]).required(),
    amqpUrls: list(`${prefix}_AMQP_URLS`, url("", ["amqp:", "amqps:"])).required(),
    redisUrl: url("REDIS_URL", ["redis:", "rediss:"]),
    adminToken: token("ADMIN_TOKEN"),
    logLevel: logLevel("LOG_LEVEL"),
    inboxRetentionMs: int("INBOX_RETENTION_MS", { min: 0 }).default(7 * 24 * 3_600_000),
    relayMaxBackoffMs: int("OUTBOX_MAX_BACKOFF_MS", { min: 0 }).default(2 * 3_600_000),
    // One batch of up to 50 at a time: while it commits, the other half of the prefetch (100) fills the
    // next one. One at a time also means two batches of one service never lock the same rows in
    // opposite orders (a deadlock PostgreSQL would break only after deadlock_timeout).
    consumerBatchSize: int("CONSUMER_BATCH_SIZE", { min: 1, max: 1_000 }).default(50),
    // With CONSUMER_BATCH_SIZE=1 (one message per transaction, the design before batching) use 4. Each
    // transaction runs on the lane of its messages' orders (intake.ts), so one order's stay in order.
    consumerConcurrency: int("CONSUMER_CONCURRENCY", { min: 1, max: 64 }).default(1),
  };
}

/**
 * The common variables under `prefix`, plus a service's own (`extra`, read in the same pass so one
 * error names every bad variable).
 */
export function readCommonEnv(env: RawEnv, prefix: string, defaultPort: number): CommonEnv;
export function readCommonEnv<S extends EnvSchema>(
  env: RawEnv,
  prefix: string,
  defaultPort: number,
  extra: S,
): CommonEnv & EnvValues<S>;
export function readCommonEnv(
  env: RawEnv,
  prefix: string,
  defaultPort: number,
  extra: EnvSchema = {},
): CommonEnv {
  // Read in two passes (the OTEL_* variables are @orderflow/telemetry's), reported as one error.
  const problems: string[] = [];
  const collect = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(...e.problems);
      return undefined;
    }
  };
  const values = collect(() => readEnv({ ...commonSchema(prefix, defaultPort), ...extra }, env));
  const telemetry = collect(() => readTelemetryEnv(env));
  if (problems.length > 0 || !values || !telemetry) throw new ConfigError(problems);
  return { ...values, telemetry };
}

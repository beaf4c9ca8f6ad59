// The only reader of process.env in this package (see .env.example and README.md for each variable).
// Everything else takes its configuration as arguments.
import {
  ConfigError,
  int,
  type LogLevel,
  list,
  logLevel,
  num,
  oneOf,
  port,
  type RawEnv,
  readEnv,
  str,
  url,
} from "@orderflow/config";
import { readTelemetryEnv, type TelemetryEnv } from "@orderflow/telemetry";
import type { ArchiverConfig } from "./archiver.ts";
import type { ReconcilerConfig } from "./reconciler.ts";
import type { RelayConfig } from "./relay.ts";
import { RELAY_PUBLISH_CHANNELS } from "./relay-config.ts";

export interface OutboxEnv {
  databaseUrl: string;
  amqpUrls: string[];
  poolMax: number;
  relay: Partial<RelayConfig>;
  publisher: { confirmTimeoutMs?: number; maxInFlight?: number; channels: number; reconnectDelayMs?: number };
  reconcile: Partial<ReconcilerConfig> & { enabled: boolean };
  archive: Partial<ArchiverConfig> & { enabled: boolean };
  metricsPort?: number;
  /** Where /metrics listens: loopback unless a container network must reach it. */
  metricsHost: string;
  logLevel: LogLevel;
  /** The standard OTEL_* variables: tracing is on when an OTLP endpoint is set. */
  telemetry: TelemetryEnv;
}

const ms = (name: string) => num(name, { min: 0 });

const schema = (needsBroker: boolean) => ({
  databaseUrl: url(["OUTBOX_DATABASE_URL", "DATABASE_URL"], ["postgres:", "postgresql:"]).required(),
  amqpUrls: needsBroker
    ? list("OUTBOX_AMQP_URLS", url("", ["amqp:", "amqps:"])).required()
    : list("OUTBOX_AMQP_URLS", url("", ["amqp:", "amqps:"])).default([]),
  poolMax: int("OUTBOX_POOL_MAX", { min: 1 }).default(4),
  batchSize: int("OUTBOX_BATCH_SIZE", { min: 1 }),
  sweepConcurrency: int("OUTBOX_SWEEP_CONCURRENCY", { min: 1, max: 16 }),
  pollIntervalMs: ms("OUTBOX_POLL_MS"),
  leaseMs: ms("OUTBOX_LEASE_MS"),
  backoffMs: list("OUTBOX_BACKOFF_MS", ms("")),
  doneOnConfirm: list("OUTBOX_DONE_ON_CONFIRM"),
  confirmTimeoutMs: ms("OUTBOX_CONFIRM_TIMEOUT_MS"),
  maxInFlight: int("OUTBOX_MAX_IN_FLIGHT", { min: 1 }),
  publishChannels: int("OUTBOX_PUBLISH_CHANNELS", { min: 1, max: 8 }).default(RELAY_PUBLISH_CHANNELS),
  reconnectDelayMs: ms("OUTBOX_RECONNECT_DELAY_MS"),
  reconcile: oneOf("OUTBOX_RECONCILE", ["on", "off"]).default("on"),
  reconcileAfterMs: ms("OUTBOX_RECONCILE_AFTER_MS"),
  reconcileIntervalMs: ms("OUTBOX_RECONCILE_INTERVAL_MS"),
  archive: oneOf("OUTBOX_ARCHIVE", ["on", "off"]).default("on"),
  retentionMs: ms("OUTBOX_RETENTION_MS"),
  archiveRetentionMs: ms("OUTBOX_ARCHIVE_RETENTION_MS"),
  archiveIntervalMs: ms("OUTBOX_ARCHIVE_INTERVAL_MS"),
  metricsPort: port("OUTBOX_METRICS_PORT"),
  metricsHost: str("OUTBOX_METRICS_HOST").default("127.0.0.1"),
  logLevel: logLevel("OUTBOX_LOG_LEVEL"),
});

/** Drops undefined entries so defaults apply through `{ ...DEFAULTS, ...partial }`. */
function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** `needsBroker` false: the CLI's commands that touch only the database. */
/** Both readers' problems in one error, so one start names every bad variable. */
function readBoth<A, B>(a: () => A, b: () => B): [A, B] {
  const problems: string[] = [];
  const attempt = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(...e.problems);
      return undefined;
    }
  };
  const ra = attempt(a);
  const rb = attempt(b);
  if (problems.length > 0) throw new ConfigError(problems);
  return [ra as A, rb as B];
}

export function readOutboxEnv(env: RawEnv = process.env, needsBroker = true): OutboxEnv {
  const [e, telemetry] = readBoth(
    () => readEnv(schema(needsBroker), env),
    () => readTelemetryEnv(env),
  );
  return {
    databaseUrl: e.databaseUrl,
    amqpUrls: e.amqpUrls,
    poolMax: e.poolMax,
    relay: defined({
      batchSize: e.batchSize,
      sweepConcurrency: e.sweepConcurrency,
      pollIntervalMs: e.pollIntervalMs,
      leaseMs: e.leaseMs,
      backoffMs: e.backoffMs,
      doneOnConfirm: e.doneOnConfirm,
    }),
    publisher: {
      channels: e.publishChannels,
      ...defined({
        confirmTimeoutMs: e.confirmTimeoutMs,
        maxInFlight: e.maxInFlight,
        reconnectDelayMs: e.reconnectDelayMs,
      }),
    },
    reconcile: {
      enabled: e.reconcile !== "off",
      ...defined({ staleAfterMs: e.reconcileAfterMs, intervalMs: e.reconcileIntervalMs }),
    },
    archive: {
      enabled: e.archive !== "off",
      ...defined({
        retentionMs: e.retentionMs,
        archiveRetentionMs: e.archiveRetentionMs,
        intervalMs: e.archiveIntervalMs,
      }),
    },
    ...(e.metricsPort === undefined ? {} : { metricsPort: e.metricsPort }),
    metricsHost: e.metricsHost,
    logLevel: e.logLevel,
    telemetry,
  };
}

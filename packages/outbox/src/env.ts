// The only reader of process.env in this package. Everything else takes its configuration as arguments.
import type { ArchiverConfig } from "./archiver.ts";
import type { ReconcilerConfig } from "./reconciler.ts";
import type { RelayConfig } from "./relay.ts";
import type { LogLevel } from "./types.ts";

export interface OutboxEnv {
  databaseUrl: string;
  amqpUrls: string[];
  exchange: string;
  poolMax: number;
  relay: Partial<RelayConfig>;
  publisher: { confirmTimeoutMs?: number; maxInFlight?: number; reconnectDelayMs?: number };
  reconcile: Partial<ReconcilerConfig> & { enabled: boolean };
  archive: Partial<ArchiverConfig> & { enabled: boolean };
  metricsPort?: number;
  logLevel: LogLevel;
  /** Test-only fault point, e.g. "pause-after-publish". */
  fault?: string;
}

type Env = Record<string, string | undefined>;

function num(env: Env, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${v}"`);
  return n;
}

function list(env: Env, name: string): string[] | undefined {
  const v = env[name];
  return v
    ? v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
}

/** Drops undefined entries so defaults apply through `{ ...DEFAULTS, ...partial }`. */
function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function readOutboxEnv(env: Env = process.env, needsBroker = true): OutboxEnv {
  const databaseUrl = env.OUTBOX_DATABASE_URL ?? env.DATABASE_URL;
  if (!databaseUrl) throw new Error("OUTBOX_DATABASE_URL (or DATABASE_URL) is required");
  const amqpUrls = list(env, "OUTBOX_AMQP_URLS") ?? [];
  if (needsBroker && amqpUrls.length === 0)
    throw new Error("OUTBOX_AMQP_URLS is required: comma-separated, one URL per broker node");
  const backoff = list(env, "OUTBOX_BACKOFF_MS")?.map(Number);
  if (backoff?.some((n) => !Number.isFinite(n) || n < 0))
    throw new Error("OUTBOX_BACKOFF_MS: comma-separated ms");
  const level = (env.OUTBOX_LOG_LEVEL ?? "info") as LogLevel;
  if (!["debug", "info", "warn", "error"].includes(level))
    throw new Error(`OUTBOX_LOG_LEVEL: bad level ${level}`);
  return {
    databaseUrl,
    amqpUrls,
    exchange: env.OUTBOX_EXCHANGE ?? "orderflow.events",
    poolMax: num(env, "OUTBOX_POOL_MAX") ?? 4,
    relay: defined({
      batchSize: num(env, "OUTBOX_BATCH_SIZE"),
      pollIntervalMs: num(env, "OUTBOX_POLL_MS"),
      leaseMs: num(env, "OUTBOX_LEASE_MS"),
      backoffMs: backoff,
      doneOnConfirm: list(env, "OUTBOX_DONE_ON_CONFIRM"),
      // Set only by the fault lab (load-tests/src/fault), to show what the lease protects against.
      labNaiveClaim: env.ORDERFLOW_LAB_PITFALL === "no-claim-cas" ? true : undefined,
    }),
    publisher: defined({
      confirmTimeoutMs: num(env, "OUTBOX_CONFIRM_TIMEOUT_MS"),
      maxInFlight: num(env, "OUTBOX_MAX_IN_FLIGHT"),
      reconnectDelayMs: num(env, "OUTBOX_RECONNECT_DELAY_MS"),
    }),
    reconcile: {
      enabled: env.OUTBOX_RECONCILE !== "off",
      ...defined({
        staleAfterMs: num(env, "OUTBOX_RECONCILE_AFTER_MS"),
        intervalMs: num(env, "OUTBOX_RECONCILE_INTERVAL_MS"),
      }),
    },
    archive: {
      enabled: env.OUTBOX_ARCHIVE !== "off",
      ...defined({
        retentionMs: num(env, "OUTBOX_RETENTION_MS"),
        archiveRetentionMs: num(env, "OUTBOX_ARCHIVE_RETENTION_MS"),
        intervalMs: num(env, "OUTBOX_ARCHIVE_INTERVAL_MS"),
      }),
    },
    metricsPort: num(env, "OUTBOX_METRICS_PORT"),
    logLevel: level,
    fault: env.OUTBOX_FAULT || undefined,
  };
}

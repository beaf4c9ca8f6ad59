// The relay as its own process (relay-main.ts runs it; a test entry may pass fault points). It owns its
// pg pool, so a busy service pool cannot starve it, and its broker connection. SIGTERM/SIGINT: stop
// intake, drain the batch in flight, close; a second signal exits at once.
import http from "node:http";
import { KEEP_IDLE_CONNECTIONS } from "@orderflow/db";
import { createLogger, type Logger } from "@orderflow/logging";
import { startTracing } from "@orderflow/telemetry";
import pg from "pg";
import { Registry } from "prom-client";
import { createArchiver } from "./archiver.ts";
import { composeRelay, type RelayStrategies } from "./compose-relay.ts";
import type { OutboxEnv } from "./env.ts";
import { createOutboxMetrics } from "./metrics.ts";
import { createReconciler } from "./reconciler.ts";
import type { RelayFaults } from "./relay.ts";
import { createRelayConnection } from "./relay-connection.ts";

export interface RelayProcessParts extends RelayStrategies {
  faults?: RelayFaults;
}

function serveMetrics(
  registry: Registry,
  port: number | undefined,
  host: string,
  log: Logger,
): http.Server | undefined {
  if (port === undefined) return undefined;
  return http
    .createServer(async (_req, res) => {
      try {
        const body = await registry.metrics();
        res.setHeader("content-type", registry.contentType);
        res.end(body);
      } catch (e) {
        // The backlog gauges query the database at each scrape: while it is away, the scrape fails (a 503
        // a health check and Prometheus can read), the relay does not.
        log.warn({ error: (e as Error).message }, "metrics.scrape_failed");
        res.statusCode = 503;
        res.setHeader("content-type", "text/plain");
        res.end(`metrics unavailable: ${(e as Error).message}\n`);
      }
    })
    .listen(port, host);
}

function onSignals(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      log.warn({ signal }, "relay.forced_exit");
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, "relay.stopping");
    await stop();
    log.info("relay.stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

/** Starts every part of the relay process and returns once they run; signals stop it. */
export async function runRelayProcess(env: OutboxEnv, parts: RelayProcessParts = {}): Promise<void> {
  const log = createLogger({ name: "outbox-relay", level: env.logLevel });
  // Before anything publishes: the publish spans need the tracer (a no-op without OTEL_* endpoint).
  const tracing = await startTracing(env.telemetry, { serviceName: "outbox-relay" }, log);
  const pool = new pg.Pool({
    connectionString: env.databaseUrl,
    max: env.poolMax,
    application_name: "outbox-relay",
    ...KEEP_IDLE_CONNECTIONS,
  });
  pool.on("error", (e) => log.warn({ error: e.message }, "pg.pool_error"));
  const registry = new Registry();
  const metrics = createOutboxMetrics({ registry, pool, staleSentAfterMs: env.reconcile.staleAfterMs });
  const { reconnectDelayMs, ...publisherOptions } = env.publisher;
  const connection = createRelayConnection({
    urls: env.amqpUrls,
    log,
    ...(reconnectDelayMs !== undefined ? { reconnectDelayMs } : {}),
  });
  const { faults, ...strategies } = parts;
  const { relay, publisher } = composeRelay({
    pool,
    connection,
    log,
    metrics,
    config: env.relay,
    publisherOptions,
    strategies,
    ...(faults ? { faults } : {}),
  });
  const reconciler = createReconciler({ pool, publisher, log, metrics, config: env.reconcile });
  const archiver = createArchiver({ pool, log, metrics, config: env.archive });
  relay.start();
  if (env.reconcile.enabled) reconciler.start();
  if (env.archive.enabled) archiver.start();
  const server = serveMetrics(registry, env.metricsPort, env.metricsHost, log);
  log.info({ nodes: env.amqpUrls.length }, "relay.started");
  onSignals(log, async () => {
    await relay.stop();
    await Promise.all([reconciler.stop(), archiver.stop()]);
    server?.close();
    await publisher.close();
    await connection.close();
    await pool.end();
    // Last: the spans of the batches drained above are exported before the process exits.
    await tracing.shutdown();
  });
}

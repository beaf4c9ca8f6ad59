// The relay as its own process: `tsx packages/outbox/src/relay-main.ts` (configuration: env.ts).
// It owns its pg pool, so a busy service pool cannot starve it. SIGTERM/SIGINT: stop intake, drain the
// batch in flight, close; a second signal exits at once.
import http from "node:http";
import pg from "pg";
import { Registry } from "prom-client";
import { createArchiver } from "./archiver.ts";
import { createConfirmPublisher } from "./confirm-publisher.ts";
import { readOutboxEnv } from "./env.ts";
import { jsonLog } from "./log.ts";
import { createOutboxMetrics } from "./metrics.ts";
import { createReconciler } from "./reconciler.ts";
import { createRelay, type RelayFaults } from "./relay.ts";

const env = readOutboxEnv();
const log = jsonLog({ name: "outbox-relay", level: env.logLevel });
const pool = new pg.Pool({
  connectionString: env.databaseUrl,
  max: env.poolMax,
  application_name: "outbox-relay",
});
pool.on("error", (e) => log("warn", "pg.pool_error", { error: e.message }));
const registry = new Registry();
const metrics = createOutboxMetrics({ registry, pool, staleSentAfterMs: env.reconcile.staleAfterMs });
const publisher = createConfirmPublisher({
  urls: env.amqpUrls,
  exchange: env.exchange,
  log,
  ...env.publisher,
  onWindow: (n) => metrics.confirmWindow.set(n),
});

// Test-only: freeze after the broker confirmed a batch and before it is marked sent, so a test can
// SIGKILL the process in exactly the window where a crash must cause a duplicate, not a loss.
const faults: RelayFaults = {};
if (env.fault === "pause-after-publish") {
  faults.afterPublish = async (rows, outcomes) => {
    const confirmed = outcomes.filter((o) => o.status === "confirmed").length;
    process.stdout.write(`OUTBOX_FAULT paused-after-publish rows=${rows.length} confirmed=${confirmed}\n`);
    await new Promise(() => {});
  };
}

if (env.relay.labNaiveClaim)
  log("warn", "FAULT LAB PITFALL ON: no-claim-cas (claims without lease or lock); never in production", {});
const relay = createRelay({ pool, publisher, log, metrics, config: env.relay, faults });
const reconciler = createReconciler({ pool, publisher, log, metrics, config: env.reconcile });
const archiver = createArchiver({ pool, log, metrics, config: env.archive });

relay.start();
if (env.reconcile.enabled) reconciler.start();
if (env.archive.enabled) archiver.start();

const server =
  env.metricsPort === undefined
    ? undefined
    : http
        .createServer(async (_req, res) => {
          res.setHeader("content-type", registry.contentType);
          res.end(await registry.metrics());
        })
        .listen(env.metricsPort, "127.0.0.1");

log("info", "relay.started", { nodes: env.amqpUrls.length, exchange: env.exchange, fault: env.fault });

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) {
    log("warn", "relay.forced_exit", { signal });
    process.exit(1);
  }
  stopping = true;
  log("info", "relay.stopping", { signal });
  await relay.stop();
  await Promise.all([reconciler.stop(), archiver.stop()]);
  server?.close();
  await publisher.close();
  await pool.end();
  log("info", "relay.stopped", {});
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));

// The relay's fast path inside a service process: rows committed by this process leave at once, without
// waiting for the relay process's next sweep. It has its own pool (a busy service pool cannot delay
// publishes) and its own broker connection (recycling it after silent confirms never disturbs the
// consumer). It also sweeps, slowly, as a second line behind the relay process.
import { KEEP_IDLE_CONNECTIONS } from "@orderflow/db";
import type { Logger } from "@orderflow/logging";
import {
  composeRelay,
  createOutboxMetrics,
  createRelayConnection,
  type RelayConfig,
  type RelayStrategies,
} from "@orderflow/outbox";
import pg from "pg";
import type { Registry } from "prom-client";
import { shutdownStep } from "./shutdown.ts";

export interface InProcessRelayOptions {
  service: string;
  databaseUrl: string;
  amqpUrls: string[];
  log: Logger;
  registry: Registry;
  relay?: Partial<RelayConfig>;
  strategies?: RelayStrategies;
}

export function startInProcessRelay(opts: InProcessRelayOptions) {
  const log = opts.log.child({ component: "relay" });
  const pool = new pg.Pool({
    connectionString: opts.databaseUrl,
    max: 4,
    application_name: `${opts.service}-relay`,
    ...KEEP_IDLE_CONNECTIONS,
  });
  pool.on("error", (e) => log.warn({ error: e.message }, "relay_pool.error"));
  const metrics = createOutboxMetrics({ registry: opts.registry, pool });
  const connection = createRelayConnection({ urls: opts.amqpUrls, name: `${opts.service}-relay`, log });
  // The dedicated relay process sweeps every second; this one exists for the fast path and sweeps slowly.
  const { relay, publisher } = composeRelay({
    pool,
    connection,
    log,
    metrics,
    config: { pollIntervalMs: 5_000, ...opts.relay },
    ...(opts.strategies ? { strategies: opts.strategies } : {}),
  });
  relay.start();
  return {
    relay,
    isConnected: () => publisher.isConnected(),
    ping: async () => {
      await pool.query("SELECT 1");
      return true;
    },
    /** Flushes what is in flight (bounded), then closes the publisher, its connection and the pool. */
    async stop(): Promise<void> {
      await shutdownStep(opts.log, "relay.stop", () => relay.stop(10_000));
      await shutdownStep(opts.log, "publisher.close", () => publisher.close());
      await shutdownStep(opts.log, "relay_connection.close", () => connection.close());
      await shutdownStep(opts.log, "relay_pool.end", () => pool.end());
    },
  };
}

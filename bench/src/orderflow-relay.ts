// orderflow's relay as the services run it: createRelay over its own small pool, a confirm publisher on
// its own connection knowing every node (as many confirm channels as the relay process), the after-commit
// fast path plus the sweep, default settings.
import { createConfirmPublisher } from "@orderflow/messaging";
import {
  createRelay,
  createRelayConnection,
  RELAY_PUBLISH_CHANNELS,
  type RelayConfig,
} from "@orderflow/outbox";
import type pg from "pg";
import type { BenchRelay } from "./seed-relay.ts";

/** `config`: settings over the defaults (the bench's variants: one sweep batch at a time). */
export function createOrderflowRelay(opts: {
  pool: pg.Pool;
  amqpUrls: string[];
  config?: Partial<RelayConfig>;
  /** Confirm channels of its publisher (default: the relay process's). */
  channels?: number;
}): BenchRelay {
  // Every row goes to orderflow.events (toMessage), the exchange the seed baseline is given too.
  const connection = createRelayConnection({ urls: opts.amqpUrls });
  const publisher = createConfirmPublisher(connection, { channels: opts.channels ?? RELAY_PUBLISH_CHANNELS });
  const relay = createRelay({ pool: opts.pool, publisher, ...(opts.config ? { config: opts.config } : {}) });
  return {
    async start() {
      if (!(await publisher.waitUntilConnected(10_000))) throw new Error("relay publisher: no connection");
      relay.start();
    },
    async stop() {
      await relay.stop(10_000);
      await publisher.close();
      await connection.close();
    },
    afterCommit: (ids) => relay.afterCommit(ids),
  };
}

// orderflow's relay as the services run it: createRelay over its own small pool, a confirm publisher on
// its own connection knowing every node, the after-commit fast path plus the sweep, default settings.
import { createConfirmPublisher } from "@orderflow/messaging";
import { createRelay, createRelayConnection } from "@orderflow/outbox";
import type pg from "pg";
import type { BenchRelay } from "./seed-relay.ts";

export function createOrderflowRelay(opts: { pool: pg.Pool; amqpUrls: string[] }): BenchRelay {
  // Every row goes to orderflow.events (toMessage), the exchange the seed baseline is given too.
  const connection = createRelayConnection({ urls: opts.amqpUrls });
  const publisher = createConfirmPublisher(connection);
  const relay = createRelay({ pool: opts.pool, publisher });
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

// orderflow's relay and the seed design as contenders: both over orderflow's outbox table in a scratch
// database of the stack, the order row and its event written by withOutbox in one transaction.
import { pgTransaction } from "@orderflow/db";
import { withOutbox } from "@orderflow/outbox";
import type pg from "pg";
import { confirmedCount } from "./outbox-rows.ts";
import { type Contender, INSERT_PEER_ORDER, ORDER_CREATED_SQL, orderCreated } from "./peer-contender.ts";
import type { BenchRelay } from "./seed-relay.ts";

export interface OutboxTableDeps {
  name: string;
  version: string;
  settings: Record<string, unknown>;
  pool: pg.Pool;
  routingKey: string;
  postgresRoots: () => number[];
  /** A fresh relay per run, as a service's process starts one. */
  makeRelay: () => BenchRelay;
}

export function outboxTableContender(d: OutboxTableDeps): Contender {
  let relay: BenchRelay | undefined;
  return {
    name: d.name,
    version: d.version,
    settings: d.settings,
    postgresRoots: d.postgresRoots,
    async seedBacklog(n) {
      await d.pool.query(
        `INSERT INTO outbox (message_id, event_type, aggregate_type, aggregate_id, payload)
         SELECT gen_random_uuid(), $1, 'order', md5(g::text), ${ORDER_CREATED_SQL} FROM generate_series(1, $2) g`,
        [d.routingKey, n],
      );
      await d.pool.query("ANALYZE outbox");
    },
    async writeOne() {
      return await withOutbox(
        (fn) => pgTransaction(d.pool, fn),
        (ids) => relay?.afterCommit(ids),
        async (tx, enqueue) => {
          const orderId = crypto.randomUUID();
          const payload = orderCreated(orderId);
          await tx.$executeRawUnsafe(INSERT_PEER_ORDER, orderId, payload.customerId, payload.total);
          return await enqueue({
            eventType: d.routingKey,
            aggregateType: "order",
            aggregateId: orderId,
            payload,
            correlationId: orderId,
          });
        },
      );
    },
    async start() {
      relay = d.makeRelay();
      await relay.start();
    },
    async stop() {
      await relay?.stop();
      relay = undefined;
    },
    async pending() {
      const r = await d.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox");
      return (r.rows[0]?.n ?? 0) - (await confirmedCount(d.pool));
    },
    async reset() {
      await d.pool.query("TRUNCATE outbox, peer_orders");
    },
    async close() {
      await relay?.stop();
    },
  };
}

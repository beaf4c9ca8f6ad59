// An ordered stream end to end, under the faults that reorder messages: two relays (one dies after the
// broker confirmed a batch and before it marked it, so the batch goes out again after its lease), two
// consumer instances on one queue sharing an inbox, retries forced on some deliveries, the queue's leader
// node killed mid-flight and one consumer's connection cut. Each aggregate's effects must apply in the
// order their rows were written: 1, 2, 3... with no gap and nothing twice. Against the stack's
// PostgreSQL and broker cluster.
import { createHash, randomUUID } from "node:crypto";
import { applyMigrations, pgTransaction, type SqlTx } from "@orderflow/db";
import { amqpUrls, killBrokerNode, listQueues, startBrokerNode } from "@orderflow/infra";
import {
  type ConfirmPublisher,
  createBrokerConnection,
  type Handlers,
  INBOX_MIGRATIONS_DIR,
  startConsumer,
  TransientError,
} from "@orderflow/messaging";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRelay, enqueue, type OutboxEvent } from "../src/index.ts";
import { freshDatabase, orderPublisher, purgeQueues, ROUTED_QUEUE, stack, type TestDb } from "./helpers.ts";

let db: TestDb;
beforeAll(async () => {
  db = await freshDatabase("outbox_ordered");
  await applyMigrations({ databaseUrl: db.url, migrationsDirs: [INBOX_MIGRATIONS_DIR] });
  await db.pool.query(`CREATE TABLE applied (
    n bigserial PRIMARY KEY, ordering_key text NOT NULL, sequence int NOT NULL, instance text NOT NULL)`);
});
afterAll(async () => db?.drop());

const RETENTION = {
  retentionMs: 7 * 24 * 3600_000,
  relayMaxBackoffMs: 60_000,
  reconciliationPeriodMs: 3600_000,
};

/** An order.created the contracts accept, in the ordered stream of `aggregate`. */
const streamEvent = (aggregate: string): OutboxEvent => ({
  eventType: "order.created",
  aggregateType: "order",
  aggregateId: aggregate,
  ordered: true,
  payload: {
    orderId: aggregate,
    customerId: "c-ordered",
    lines: [{ sku: "sku-1", quantity: 1, unitPrice: 100 }],
    total: 100,
    createdAt: new Date().toISOString(),
  },
});

/** About one delivery in five fails its first attempt (by message id, so both instances agree). */
const failsFirstTime = (messageId: string) => (createHash("sha256").update(messageId).digest()[0] ?? 0) < 52;

function consumerInstance(instance: string) {
  const conn = createBrokerConnection({ urls: amqpUrls(stack, "inventory"), name: `ordered-${instance}` });
  const handlers: Handlers = {
    "order.created": async (ev, tx: SqlTx) => {
      if (ev.attempt === 0 && failsFirstTime(ev.envelope.messageId))
        throw new TransientError("forced retry (test fault)");
      await tx.$executeRawUnsafe(
        "INSERT INTO applied (ordering_key, sequence, instance) VALUES ($1, $2, $3)",
        String(ev.stream?.key),
        ev.stream?.sequence ?? 0,
        instance,
      );
    },
  };
  return { conn, handlers };
}

describe("an ordered stream under faults", () => {
  it("two relays and two consumers apply every aggregate's events in sequence through a relay dying before its marks, forced retries, a leader kill and a cut consumer connection", async () => {
    await purgeQueues([ROUTED_QUEUE]);
    const aggregates = Array.from({ length: 10 }, () => `agg-${randomUUID()}`);
    const perAggregate = 30;
    const leader = (await listQueues(stack.rabbit)).find((q) => q.name === ROUTED_QUEUE)?.leader as string;

    const instances = ["a", "b"].map(consumerInstance);
    const consumers = await Promise.all(
      instances.map((c, i) =>
        startConsumer({
          connection: c.conn,
          queue: ROUTED_QUEUE,
          consumerName: "ordered-proof",
          handlers: c.handlers,
          transaction: (fn) => pgTransaction(db.pool, fn),
          retention: RETENTION,
          batchSize: i === 0 ? 50 : 1,
          sequenceGapWaitMs: 120_000,
        }),
      ),
    );
    let batches = 0;
    const publishers: ConfirmPublisher[] = [orderPublisher(), orderPublisher()];
    const relays = publishers.map((publisher, i) =>
      createRelay({
        pool: db.pool,
        publisher,
        config: { pollIntervalMs: 50, leaseMs: 1_500 },
        ...(i === 0
          ? {
              faults: {
                afterPublish: async () => {
                  batches += 1;
                  if (batches % 6 === 0) throw new Error("relay died before marking (test fault)");
                },
              },
            }
          : {}),
      }),
    );
    for (const r of relays) r.start();
    let killed = false;
    try {
      let written = 0;
      for (let round = 0; round < perAggregate; round++) {
        if (round === 10) {
          await killBrokerNode(leader);
          killed = true;
        }
        // A consumer instance loses its connection: what it had not acked goes to the other.
        if (round === 20) await instances[1]?.conn.close();
        await Promise.all(
          aggregates.map(async (a) => {
            const id = await pgTransaction(db.pool, (tx) => enqueue(tx, streamEvent(a)));
            written += 1;
            for (const r of relays) r.afterCommit([id]);
          }),
        );
        await new Promise((r) => setTimeout(r, 50));
      }
      const total = written;
      await eventually(
        "every event applied",
        async () => {
          const r = await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM applied");
          return (r.rows[0]?.n ?? 0) >= total ? true : undefined;
        },
        { timeoutMs: 180_000, intervalMs: 500 },
      );

      const rows = await db.pool.query<{ ordering_key: string; sequence: number; instance: string }>(
        "SELECT ordering_key, sequence, instance FROM applied ORDER BY n",
      );
      const byKey = new Map<string, number[]>();
      for (const r of rows.rows)
        byKey.set(r.ordering_key, [...(byKey.get(r.ordering_key) ?? []), r.sequence]);
      const expected = Array.from({ length: perAggregate }, (_, i) => i + 1);
      for (const a of aggregates) expect(byKey.get(`order:${a}`), a).toEqual(expected);
      expect(rows.rows.length).toBe(total);
      expect(batches).toBeGreaterThanOrEqual(6);
      console.log(
        `ordered under faults: ${total} events over ${aggregates.length} aggregates; applied by instance ${JSON.stringify(
          Object.fromEntries(["a", "b"].map((x) => [x, rows.rows.filter((r) => r.instance === x).length])),
        )}; relay batches ${batches}; leader killed ${leader}`,
      );
    } finally {
      for (const r of relays) await r.stop();
      for (const p of publishers) await p.close();
      for (const c of consumers) await c.stop().catch(() => {});
      for (const i of instances) await i.conn.close().catch(() => {});
      if (killed) await startBrokerNode(leader);
    }
  }, 300_000);
});

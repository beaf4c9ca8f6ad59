import { randomUUID } from "node:crypto";
import { pgTransaction } from "@orderflow/db";
import { silentLogger } from "@orderflow/logging";
import { eventually } from "@orderflow/testkit/eventually.ts";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRelay, enqueue, type Relay } from "../src/index.ts";
import {
  buildEvent,
  captureLog,
  countDeliveries,
  enqueueMany,
  freshDatabase,
  orderPublisher,
  publishAnswers,
  ROUTED_QUEUE,
  statusCounts,
  type TestDb,
} from "./helpers.ts";

let db: TestDb;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => db?.drop());

// Each test holds every row to this: a row goes out twice only after the broker left a publish of it
// unconfirmed (publishAnswers); with every publish confirmed, which is the normal path, none goes out twice.
describe("no row is published twice in the normal path", () => {
  it("the fast path and the sweep racing on the same rows publish each row exactly once", async () => {
    const counter = await countDeliveries(ROUTED_QUEUE);
    const answers = publishAnswers();
    const publisher = orderPublisher();
    await publisher.waitUntilConnected(10_000);
    // The sweep polls every 2 ms and claims small batches, so it constantly races the fast path for
    // the rows each commit hands over.
    const byPath = { fast: 0, sweep: 0 };
    const relay = createRelay({
      pool: db.pool,
      publisher,
      config: { pollIntervalMs: 2, batchSize: 20, fastPathConcurrency: 8 },
      faults: answers.faults,
      log: captureLog((_level, event, fields) => {
        if (event === "relay.sent") byPath[fields?.path as "fast" | "sweep"] += fields?.count as number;
      }),
    });
    relay.start();
    const n = 2_000;
    const ids: string[] = [];
    try {
      const writers = Array.from({ length: 8 }, async (_, w) => {
        for (let i = w; i < n; i += 8) {
          const id = await pgTransaction(db.pool, (tx) => enqueue(tx, buildEvent()));
          ids.push(id);
          relay.afterCommit([id]);
        }
      });
      await Promise.all(writers);
      await eventually("every row confirmed and marked", async () => (await statusCounts(db.pool))[1] === n, {
        timeoutMs: 60_000,
      });
      await eventually("every row delivered", () => counter.distinct() === n, { timeoutMs: 30_000 });
      expect(answers.unexplained(counter.duplicates())).toEqual([]);
      expect(new Set(counter.published.keys())).toEqual(new Set(ids));
      // Both paths really competed for the rows (otherwise the race proves nothing).
      const lat = await db.pool.query<{ p50: number; p99: number; max: number }>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50,
                percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99, max(ms)::float8 AS max
           FROM (SELECT (extract(epoch FROM sent_at - created_at) * 1000)::float8 AS ms FROM outbox) t`,
      );
      const l = lat.rows[0];
      console.log(
        `race: fast path published ${byPath.fast}, sweep published ${byPath.sweep}; ` +
          `commit-to-marked-sent ms p50 ${l?.p50.toFixed(1)} p99 ${l?.p99.toFixed(1)} max ${l?.max.toFixed(1)}; ` +
          `unconfirmed publishes: ${answers.summary()}`,
      );
      expect(byPath.fast).toBeGreaterThan(0);
      expect(byPath.sweep).toBeGreaterThan(0);
      // Every row confirmed once; a row whose first publish went unconfirmed is counted by its second.
      expect(byPath.fast + byPath.sweep).toBe(n);
    } finally {
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  });

  it("one relay drains 10,000 pending rows in batches, three in flight at once, each exactly once (throughput figure)", async () => {
    await db.pool.query("TRUNCATE outbox");
    const n = 10_000;
    await enqueueMany(db.pool, n, 500);
    const counter = await countDeliveries(ROUTED_QUEUE);
    const answers = publishAnswers();
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    const publisher = orderPublisher();
    await publisher.waitUntilConnected(10_000);
    const relay = createRelay({
      log: silentLogger,
      pool,
      publisher,
      // The next batch is claimed while earlier ones await their confirms: leases keep them apart.
      config: { batchSize: 500, sweepConcurrency: 3, pollIntervalMs: 50 },
      faults: answers.faults,
    });
    const t0 = Date.now();
    relay.start();
    try {
      await eventually("every row marked sent", async () => (await statusCounts(db.pool))[1] === n, {
        timeoutMs: 120_000,
        intervalMs: 50,
      });
      const seconds = (Date.now() - t0) / 1000;
      console.log(
        `one relay: ${n} rows published and marked in ${seconds.toFixed(2)} s (${Math.round(n / seconds)} rows/s); ` +
          `unconfirmed publishes: ${answers.summary()}`,
      );
      await eventually("every row delivered", () => counter.distinct() === n, { timeoutMs: 60_000 });
      expect(answers.unexplained(counter.duplicates())).toEqual([]);
    } finally {
      await relay.stop();
      await publisher.close();
      await pool.end();
      await counter.close();
    }
  });

  it("three relays over 10,000 pending rows publish every row, none twice", async () => {
    await db.pool.query("TRUNCATE outbox");
    const n = 10_000;
    const ids = await enqueueMany(db.pool, n, 500);
    const counter = await countDeliveries(ROUTED_QUEUE);
    const answers = publishAnswers();
    // Three independent relays, each with its own pool and broker connection, as three processes would.
    const relays: { relay: Relay; pool: pg.Pool; close: () => Promise<void> }[] = [];
    for (let i = 0; i < 3; i++) {
      const pool = new pg.Pool({ connectionString: db.url, max: 3 });
      const publisher = orderPublisher();
      await publisher.waitUntilConnected(10_000);
      const relay = createRelay({
        log: silentLogger,
        pool,
        publisher,
        config: { batchSize: 250, pollIntervalMs: 50 },
        faults: answers.faults,
      });
      relays.push({
        relay,
        pool,
        close: async () => {
          await publisher.close();
          await pool.end();
        },
      });
    }
    const t0 = Date.now();
    for (const r of relays) r.relay.start();
    try {
      await eventually("every row marked sent", async () => (await statusCounts(db.pool))[1] === n, {
        timeoutMs: 120_000,
        intervalMs: 100,
      });
      const seconds = (Date.now() - t0) / 1000;
      await eventually("every row delivered", () => counter.distinct() === n, { timeoutMs: 60_000 });
      console.log(
        `three relays: ${n} rows published and marked in ${seconds.toFixed(2)} s (${Math.round(n / seconds)} rows/s); ` +
          `unconfirmed publishes: ${answers.summary()}`,
      );
      expect(answers.unexplained(counter.duplicates())).toEqual([]);
      expect(new Set(counter.published.keys())).toEqual(new Set(ids));
    } finally {
      await Promise.all(relays.map((r) => r.relay.stop()));
      await Promise.all(relays.map((r) => r.close()));
      await counter.close();
    }
  });

  it("a claim never takes a row whose lease another relay holds", async () => {
    await db.pool.query("TRUNCATE outbox");
    await enqueueMany(db.pool, 10, 10, { eventType: `test.nobody.${randomUUID()}` });
    const { claimDue } = await import("../src/sql/claim-due.ts");
    const a = await claimDue(db.pool, 6, 30_000);
    const b = await claimDue(db.pool, 100, 30_000);
    expect(a).toHaveLength(6);
    expect(b).toHaveLength(4);
    expect(new Set([...a, ...b].map((r) => r.id)).size).toBe(10);
    expect(await claimDue(db.pool, 100, 30_000)).toHaveLength(0);
  });
});

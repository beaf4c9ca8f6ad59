import { pgTransaction } from "@orderflow/db";
import { silentLogger } from "@orderflow/logging";
import { eventually } from "@orderflow/testkit/eventually.ts";
import pg from "pg";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createArchiver,
  createOutboxMetrics,
  createReconciler,
  createRelay,
  enqueue,
  markDone,
} from "../src/index.ts";
import {
  buildEvent,
  captureLog,
  countDeliveries,
  enqueueMany,
  freshDatabase,
  orderPublisher,
  ROUTED_QUEUE,
  statusCounts,
  type TestDb,
} from "./helpers.ts";

let db: TestDb;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => db?.drop());

const DAY = 24 * 60 * 60_000;

describe("retention and reconciliation", () => {
  it("the archiver moves done rows in batches of 1,000 while the relay keeps publishing", async () => {
    // 3,500 done rows, 8 days old: history the archiver must move without getting in the relay's way.
    await db.pool.query(`
      INSERT INTO outbox (message_id, event_type, aggregate_type, aggregate_id, payload, status, sent_at, done_at, created_at)
      SELECT gen_random_uuid(), 'order.created', 'order', g::text, '{}'::jsonb, 2,
             now() - interval '8 days', now() - interval '8 days', now() - interval '8 days'
        FROM generate_series(1, 3500) g`);
    // And 200 recent done rows, inside the retention: they stay.
    await db.pool.query(`
      INSERT INTO outbox (message_id, event_type, aggregate_type, aggregate_id, payload, status, sent_at, done_at)
      SELECT gen_random_uuid(), 'order.created', 'order', g::text, '{}'::jsonb, 2, now(), now()
        FROM generate_series(1, 200) g`);
    const counter = await countDeliveries(ROUTED_QUEUE);
    const publisher = orderPublisher();
    const relay = createRelay({
      log: silentLogger,
      pool: db.pool,
      publisher,
      config: { pollIntervalMs: 20 },
    });
    const registry = new Registry();
    const metrics = createOutboxMetrics({ registry });
    const archiver = createArchiver({
      pool: db.pool,
      metrics,
      config: { batchSize: 1_000, pauseBetweenBatchesMs: 20 },
    });
    relay.start();
    let writing = true;
    const written: string[] = [];
    const writer = (async () => {
      while (writing) {
        const id = await pgTransaction(db.pool, (tx) => enqueue(tx, buildEvent()));
        written.push(id);
        relay.afterCommit([id]);
      }
    })();
    try {
      await eventually("the relay publishing", () => counter.distinct() > 20);
      const sentBefore = counter.distinct();
      const result = await archiver.runOnce();
      const sentDuring = counter.distinct() - sentBefore;
      writing = false;
      await writer;

      expect(result.archived).toBe(3_500);
      expect(result.archiveBatches).toBe(4); // 1000 + 1000 + 1000 + 500
      const archive = await db.pool.query("SELECT count(*)::int AS n FROM outbox_archive");
      expect(archive.rows[0].n).toBe(3_500);
      const left = await db.pool.query("SELECT count(*)::int AS n FROM outbox WHERE status = 2");
      expect(left.rows[0].n).toBe(200);
      // The relay kept publishing while the archiver worked, and everything it was given got out.
      expect(sentDuring).toBeGreaterThan(0);
      await eventually("every written row delivered", () => written.every((id) => counter.published.has(id)));
      expect(counter.duplicates()).toEqual([]);
      expect((await registry.getSingleMetric("outbox_archived_total")?.get())?.values[0]?.value).toBe(3_500);

      // Pruning: archive rows past the archive's own retention go, in batches too.
      await db.pool.query(
        "UPDATE outbox_archive SET archived_at = now() - interval '31 days' WHERE id IN (SELECT id FROM outbox_archive LIMIT 1500)",
      );
      const second = await createArchiver({
        pool: db.pool,
        config: { batchSize: 1_000, archiveRetentionMs: 30 * DAY },
      }).runOnce();
      expect(second).toMatchObject({ archived: 0, pruned: 1_500 });
    } finally {
      writing = false;
      await writer;
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  });

  it("two relays' archivers on one table: one archives while the other skips its turn, and every row is archived once", async () => {
    await db.pool.query("TRUNCATE outbox, outbox_archive");
    await db.pool.query(`
      INSERT INTO outbox (message_id, event_type, aggregate_type, aggregate_id, payload, status, sent_at, done_at, created_at)
      SELECT gen_random_uuid(), 'order.created', 'order', g::text, '{}'::jsonb, 2,
             now() - interval '8 days', now() - interval '8 days', now() - interval '8 days'
        FROM generate_series(1, 3000) g`);
    // Each relay process has a pool of its own; small batches with pauses keep the first run going while
    // the second starts.
    const otherPool = new pg.Pool({ connectionString: db.url, max: 2 });
    const config = { batchSize: 200, pauseBetweenBatchesMs: 30 };
    try {
      const first = createArchiver({ pool: db.pool, config }).runOnce();
      await eventually("the first archiver moving rows", async () => {
        const r = await db.pool.query("SELECT count(*)::int AS n FROM outbox_archive");
        return r.rows[0].n > 0;
      });
      const second = await createArchiver({ pool: otherPool, config }).runOnce();
      expect(second).toEqual({ archived: 0, archiveBatches: 0, pruned: 0, skipped: true });
      expect(await first).toMatchObject({ archived: 3_000, skipped: false });
      const archive = await db.pool.query(
        "SELECT count(*)::int AS n, count(DISTINCT message_id)::int AS distinct FROM outbox_archive",
      );
      expect(archive.rows[0]).toEqual({ n: 3_000, distinct: 3_000 });
      // The turn after: the lock is free again, and there is nothing left to move.
      expect(await createArchiver({ pool: otherPool, config }).runOnce()).toMatchObject({
        archived: 0,
        skipped: false,
      });
    } finally {
      await otherPool.end();
    }
  });

  it("reconciliation republishes sent-but-not-done rows past the threshold with the same message id, and counts them", async () => {
    await db.pool.query("TRUNCATE outbox");
    const ids = await enqueueMany(db.pool, 30, 30);
    const [stale1, stale2, done, ...fresh] = ids as [string, string, string, ...string[]];
    // All sent; two of them 10 minutes ago with no reply since, one of those answered (done).
    await db.pool.query("UPDATE outbox SET status = 1, sent_at = now()");
    await db.pool.query(
      "UPDATE outbox SET sent_at = now() - interval '10 minutes' WHERE message_id = ANY($1)",
      [[stale1, stale2, done]],
    );
    await pgTransaction(db.pool, (tx) => markDone(tx, done));
    const counter = await countDeliveries(ROUTED_QUEUE);
    const publisher = orderPublisher();
    await publisher.waitUntilConnected(10_000);
    const registry = new Registry();
    const metrics = createOutboxMetrics({ registry, pool: db.pool, staleSentAfterMs: 5 * 60_000 });
    const logged: Record<string, unknown>[] = [];
    const reconciler = createReconciler({
      pool: db.pool,
      publisher,
      metrics,
      config: { staleAfterMs: 5 * 60_000 },
      log: captureLog((_l, event, f) => {
        if (event === "reconcile.republished") logged.push(f ?? {});
      }),
    });
    try {
      const stale = await registry.getSingleMetric("outbox_stale_sent")?.get();
      expect(stale?.values[0]?.value).toBe(2);
      expect(await reconciler.runOnce()).toBe(2);
      await eventually("both republished", () => counter.distinct() === 2);
      expect([...counter.published.keys()].sort()).toEqual([stale1, stale2].sort());
      expect(logged.map((l) => l.messageId).sort()).toEqual([stale1, stale2].sort());
      expect((await registry.getSingleMetric("outbox_republished_total")?.get())?.values[0]?.value).toBe(2);
      // The clock restarted: a second run right away republishes nothing.
      expect(await reconciler.runOnce()).toBe(0);
      expect(fresh.some((id) => counter.published.has(id))).toBe(false);
      const c = await statusCounts(db.pool);
      expect(c).toEqual({ 1: 29, 2: 1 });
    } finally {
      await publisher.close();
      await counter.close();
    }
  });

  it("the backlog gauges show a stalled relay: pending count and oldest pending age grow with no relay running", async () => {
    await db.pool.query("TRUNCATE outbox");
    await enqueueMany(db.pool, 5, 5);
    await db.pool.query("UPDATE outbox SET created_at = now() - interval '90 seconds'");
    const registry = new Registry();
    createOutboxMetrics({ registry, pool: db.pool });
    const text = await registry.metrics();
    expect(text).toMatch(/^outbox_pending 5$/m);
    const age = Number(/^outbox_oldest_pending_age_seconds (\S+)$/m.exec(text)?.[1]);
    expect(age).toBeGreaterThanOrEqual(90);
    expect(text).toContain("outbox_confirm_window_in_use");
    expect(text).toContain("outbox_time_in_outbox_seconds_bucket");
  });
});

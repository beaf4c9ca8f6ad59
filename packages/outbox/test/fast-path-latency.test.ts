import { pgTransaction } from "@orderflow/db";
import { silentLogger } from "@orderflow/logging";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboxMetrics, createRelay, enqueue } from "../src/index.ts";
import {
  buildEvent,
  countDeliveries,
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

describe("time in outbox", () => {
  it("at a steady 200 commits/s the fast path gets each row confirmed and marked within a fraction of a second (figure)", async () => {
    const counter = await countDeliveries(ROUTED_QUEUE);
    const publisher = orderPublisher();
    await publisher.waitUntilConnected(10_000);
    const registry = new Registry();
    const metrics = createOutboxMetrics({ registry });
    // A slow sweep: latency here is the fast path's.
    const relay = createRelay({
      log: silentLogger,
      pool: db.pool,
      publisher,
      metrics,
      config: { pollIntervalMs: 1_000 },
    });
    relay.start();
    const rate = 200;
    const seconds = 10;
    const ids: string[] = [];
    try {
      // Open model: each commit starts on schedule whether or not earlier ones finished.
      const t0 = Date.now();
      const inflight: Promise<void>[] = [];
      for (let i = 0; i < rate * seconds; i++) {
        const due = t0 + (i * 1000) / rate;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        inflight.push(
          pgTransaction(db.pool, (tx) => enqueue(tx, buildEvent())).then((id) => {
            ids.push(id);
            relay.afterCommit([id]);
          }),
        );
      }
      await Promise.all(inflight);
      await eventually("every row sent", async () => (await statusCounts(db.pool))[1] === ids.length, {
        timeoutMs: 60_000,
      });
      const r = await db.pool.query<{ p50: number; p90: number; p99: number; max: number }>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::float8 AS p50,
                percentile_cont(0.9) WITHIN GROUP (ORDER BY ms)::float8 AS p90,
                percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::float8 AS p99, max(ms)::float8 AS max
           FROM (SELECT (extract(epoch FROM sent_at - created_at) * 1000)::float8 AS ms FROM outbox) t`,
      );
      const l = r.rows[0];
      const hist = await registry.getSingleMetric("outbox_time_in_outbox_seconds")?.get();
      const count = hist?.values.find(
        (v) => (v as { metricName?: string }).metricName === "outbox_time_in_outbox_seconds_count",
      )?.value;
      console.log(
        `time in outbox at ${rate}/s for ${seconds} s: commit->marked-sent ms p50 ${l?.p50.toFixed(1)} ` +
          `p90 ${l?.p90.toFixed(1)} p99 ${l?.p99.toFixed(1)} max ${l?.max.toFixed(1)}; histogram count ${count}`,
      );
      expect(count).toBe(ids.length);
      await eventually("every row delivered", () => counter.distinct() === ids.length);
      expect(counter.duplicates()).toEqual([]);
    } finally {
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  });
});

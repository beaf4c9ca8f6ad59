// What the relay counts (claimed by path, published by verdict, confirm latency per message): the
// numbers behind the dashboards' hop latencies and the alerts on failing confirms. Real broker, real
// PostgreSQL; the registry is read directly, as a scrape would.
import { randomUUID } from "node:crypto";
import { pgTransaction } from "@orderflow/db";
import { silentLogger } from "@orderflow/logging";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboxMetrics, createRelay, enqueue } from "../src/index.ts";
import {
  buildEvent,
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
  db = await freshDatabase("outbox_counts");
});
afterAll(async () => db?.drop());

/** A metric's samples as `name{labels}` -> value (label values in the metric's label order). */
async function samples(registry: Registry, name: string): Promise<Map<string, number>> {
  const metric = await registry.getSingleMetric(name)?.get();
  const out = new Map<string, number>();
  for (const v of metric?.values ?? []) {
    const sample = (v as { metricName?: string }).metricName ?? name;
    const labels = Object.entries(v.labels)
      .filter(([k]) => k !== "le")
      .map(([k, l]) => `${k}=${l}`)
      .join(",");
    if (!("le" in v.labels)) out.set(`${sample}{${labels}}`, v.value);
  }
  return out;
}

describe("relay counts", () => {
  it("counts claimed rows by path, publishes by verdict, and one confirm latency per confirmed row", async () => {
    const counter = await countDeliveries(ROUTED_QUEUE);
    const publisher = orderPublisher();
    await publisher.waitUntilConnected(10_000);
    const registry = new Registry();
    const metrics = createOutboxMetrics({ registry });
    const relay = createRelay({
      log: silentLogger,
      pool: db.pool,
      publisher,
      metrics,
      config: { pollIntervalMs: 100, backoffMs: [60_000] },
    });
    try {
      // Before the relay starts: only the sweep can take these.
      const swept = await enqueueMany(db.pool, 7);
      relay.start();
      await eventually("the swept rows sent", async () => (await statusCounts(db.pool))[1] === swept.length);
      // Then through the fast path, one commit at a time, plus one row no queue is bound to (refused).
      const fast: string[] = [];
      for (let i = 0; i < 5; i++) {
        const id = await pgTransaction(db.pool, (tx) => enqueue(tx, buildEvent()));
        fast.push(id);
        relay.afterCommit([id]);
      }
      const unroutable = buildEvent({ eventType: `order.test-unroutable.${randomUUID().slice(0, 8)}` });
      const refusedId = await pgTransaction(db.pool, (tx) => enqueue(tx, unroutable));
      relay.afterCommit([refusedId]);
      await eventually("the fast rows sent", async () => (await statusCounts(db.pool))[1] === 12);
      const published = await eventually("the refusal counted", async () => {
        const s = await samples(registry, "outbox_published_total");
        const refused =
          (s.get("outbox_published_total{path=fast-path,outcome=refused}") ?? 0) +
          (s.get("outbox_published_total{path=sweep,outcome=refused}") ?? 0);
        return refused === 1 ? s : undefined;
      });

      const claimed = await samples(registry, "outbox_claimed_total");
      // A fast-path commit can lose its row to a sweep that ran in between: count both paths together.
      const byPath = (path: string) => claimed.get(`outbox_claimed_total{path=${path}}`) ?? 0;
      expect(byPath("sweep")).toBeGreaterThanOrEqual(swept.length);
      expect(byPath("sweep") + byPath("fast-path")).toBe(13);
      const confirmed =
        (published.get("outbox_published_total{path=sweep,outcome=confirmed}") ?? 0) +
        (published.get("outbox_published_total{path=fast-path,outcome=confirmed}") ?? 0);
      expect(confirmed).toBe(12);

      const latency = await samples(registry, "outbox_confirm_seconds");
      expect(latency.get("outbox_confirm_seconds_count{}")).toBe(12);
      const sum = latency.get("outbox_confirm_seconds_sum{}") ?? 0;
      // Each confirm took some time, and none anywhere near the confirm timeout on a healthy broker.
      expect(sum).toBeGreaterThan(0);
      expect(sum / 12).toBeLessThan(2);
      await eventually("every confirmed row delivered", () => counter.distinct() === 12);
    } finally {
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  });
});

import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { pgTransaction } from "@orderflow/db";
import { silentLogger } from "@orderflow/logging";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboxMetrics, createRelay, enqueue, redrive } from "../src/index.ts";
import {
  buildEvent,
  captureLog,
  countDeliveries,
  EXCHANGE,
  freshDatabase,
  orderPublisher,
  ROUTED_QUEUE,
  type TestDb,
  withAdminChannel,
} from "./helpers.ts";

let db: TestDb;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => db?.drop());

const rowOf = async (id: string) =>
  (await db.pool.query("SELECT status, attempts, last_error FROM outbox WHERE message_id = $1", [id]))
    .rows[0];

describe("messages the broker refuses", () => {
  it("an unroutable event reaches status 9 after its attempts, and redrive publishes it once it is routable", async () => {
    // A routing key no queue is bound to: `mandatory` makes the broker return it instead of dropping it.
    const key = `order.test-unroutable.${randomUUID().slice(0, 8)}`;
    const registry = new Registry();
    const metrics = createOutboxMetrics({ registry, pool: db.pool });
    const failures: Record<string, unknown>[] = [];
    const publisher = orderPublisher();
    const relay = createRelay({
      pool: db.pool,
      publisher,
      metrics,
      config: { pollIntervalMs: 20, backoffMs: [50, 100, 150], backoffJitter: 0.2 },
      log: captureLog((level, event, fields) => {
        if (event === "relay.message_failed") failures.push({ level, ...fields });
      }),
    });
    const counter = await countDeliveries(ROUTED_QUEUE);
    relay.start();
    try {
      const event = buildEvent({ eventType: key });
      const id = await pgTransaction(db.pool, (tx) => enqueue(tx, event));
      relay.afterCommit([id]);
      const failed = await eventually("the row to fail", async () => {
        const r = await rowOf(id);
        return r?.status === 9 ? r : undefined;
      });
      // First attempt + three retries from the schedule.
      expect(failed.attempts).toBe(4);
      expect(failed.last_error).toMatch(/unroutable/i);
      expect(failures).toEqual([
        expect.objectContaining({
          level: "error",
          messageId: id,
          correlationId: event.correlationId,
          attempts: 4,
        }),
      ]);
      expect((await registry.getSingleMetric("outbox_failed_total")?.get())?.values[0]?.value).toBe(1);
      expect((await registry.getSingleMetric("outbox_failed_rows")?.get())?.values[0]?.value).toBe(1);
      // Nothing is retried once failed.
      expect(counter.total()).toBe(0);

      // The operator fixes the topology, then redrives.
      await withAdminChannel((ch) => ch.bindQueue(ROUTED_QUEUE, EXCHANGE, key));
      try {
        const redriven = await redrive(db.pool, { eventType: key }, { metrics });
        expect(redriven).toEqual([id]);
        relay.wake();
        await eventually("the redriven row sent", async () => (await rowOf(id))?.status === 1);
        await eventually("the redriven event delivered", () => counter.published.get(id) === 1);
        expect((await registry.getSingleMetric("outbox_redriven_total")?.get())?.values[0]?.value).toBe(1);
      } finally {
        await withAdminChannel((ch) => ch.unbindQueue(ROUTED_QUEUE, EXCHANGE, key));
      }
    } finally {
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  });

  it("a message over the size limit is refused without breaking the batch it travels in", async () => {
    const publisher = orderPublisher({ maxMessageBytes: 1_000 });
    const relay = createRelay({
      log: silentLogger,
      pool: db.pool,
      publisher,
      config: { pollIntervalMs: 20, backoffMs: [60_000] },
    });
    const counter = await countDeliveries(ROUTED_QUEUE);
    try {
      const ids = await pgTransaction(db.pool, async (tx) => [
        await enqueue(tx, buildEvent()),
        await enqueue(tx, buildEvent({ payload: { blob: "x".repeat(5_000) } })),
        await enqueue(tx, buildEvent()),
      ]);
      relay.start();
      await eventually("the two small ones sent", async () => {
        const r = await db.pool.query(
          "SELECT count(*)::int AS n FROM outbox WHERE status = 1 AND message_id = ANY($1)",
          [ids],
        );
        return r.rows[0].n === 2;
      });
      const big = await rowOf(ids[1] as string);
      // Refused once, waiting for its next attempt a minute later: still pending, not failed.
      expect(big).toMatchObject({ status: 0, attempts: 1 });
      expect(big.last_error).toMatch(/too large/);
      await eventually("two deliveries", () => counter.distinct() === 2);
      expect(counter.published.has(ids[1] as string)).toBe(false);
    } finally {
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  });
});

describe("the outbox CLI", () => {
  it("`outbox redrive --id` puts that failed row back to pending and leaves other failed rows alone", async () => {
    const [a, b] = await pgTransaction(db.pool, async (tx) => [
      await enqueue(tx, buildEvent()),
      await enqueue(tx, buildEvent()),
    ]);
    await db.pool.query(
      "UPDATE outbox SET status = 9, attempts = 5, last_error = 'unroutable' WHERE message_id = ANY($1)",
      [[a, b]],
    );
    const root = new URL("../../../", import.meta.url).pathname;
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", "packages/outbox/src/cli.ts", "redrive", "--id", a as string],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? "", OUTBOX_DATABASE_URL: db.url },
        encoding: "utf8",
      },
    );
    expect(out).toContain(`"redriven":1`);
    expect(await rowOf(a as string)).toMatchObject({ status: 0, attempts: 0 });
    expect(await rowOf(b as string)).toMatchObject({ status: 9 });
    await db.pool.query("DELETE FROM outbox WHERE message_id = ANY($1)", [[a, b]]);
  });
});

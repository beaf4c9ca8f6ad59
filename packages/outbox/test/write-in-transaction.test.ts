import { pgTransaction } from "@orderflow/db";
import { silentLogger } from "@orderflow/logging";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRelay, enqueue, markDone, withOutbox } from "../src/index.ts";
import {
  buildEvent,
  countDeliveries,
  freshDatabase,
  orderPublisher,
  ROUTED_QUEUE,
  type TestDb,
} from "./helpers.ts";

let db: TestDb;
beforeAll(async () => {
  db = await freshDatabase();
  await db.pool.query("CREATE TABLE orders (id uuid PRIMARY KEY, total int NOT NULL)");
});
afterAll(async () => db?.drop());

describe("writing events in the business transaction", () => {
  it("a business transaction that throws leaves no outbox row and publishes nothing", async () => {
    const counter = await countDeliveries(ROUTED_QUEUE);
    const publisher = orderPublisher();
    const relay = createRelay({
      log: silentLogger,
      pool: db.pool,
      publisher,
      config: { pollIntervalMs: 20 },
    });
    relay.start();
    const handed: string[][] = [];
    const event = buildEvent();
    try {
      await expect(
        withOutbox(
          (fn) => pgTransaction(db.pool, fn),
          (ids) => {
            handed.push(ids);
            relay.afterCommit(ids);
          },
          async (tx, add) => {
            await tx.$executeRawUnsafe(
              "INSERT INTO orders (id, total) VALUES ($1, $2)",
              event.aggregateId,
              1999,
            );
            await add(event);
            throw new Error("payment declined");
          },
        ),
      ).rejects.toThrow("payment declined");

      // A committed control event proves the relay and the consumer are live, so "nothing" is not vacuous.
      const control = await withOutbox(
        (fn) => pgTransaction(db.pool, fn),
        (ids) => relay.afterCommit(ids),
        (_tx, add) => add(buildEvent()),
      );
      await eventually("the control event at the broker", () => counter.published.has(control));

      const rows = await db.pool.query("SELECT message_id FROM outbox WHERE aggregate_id = $1", [
        event.aggregateId,
      ]);
      const orders = await db.pool.query("SELECT 1 FROM orders WHERE id = $1", [event.aggregateId]);
      expect(rows.rowCount).toBe(0);
      expect(orders.rowCount).toBe(0);
      expect(handed).toEqual([]);
      expect(counter.total()).toBe(1);
    } finally {
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  });

  it("enqueue stores the full snapshot and the trace headers captured at write time", async () => {
    const event = buildEvent({ causationId: "7b0f7a56-5c43-4f0e-8d7c-6c0e9f3c9a11", schemaVersion: 2 });
    const id = await pgTransaction(db.pool, (tx) => enqueue(tx, event));
    const r = await db.pool.query("SELECT * FROM outbox WHERE message_id = $1", [id]);
    const row = r.rows[0];
    expect(row).toMatchObject({
      event_type: "order.created",
      aggregate_type: "order",
      aggregate_id: event.aggregateId,
      payload: event.payload,
      schema_version: 2,
      status: 0,
      attempts: 0,
      headers: {
        correlationId: event.correlationId,
        causationId: event.causationId,
        traceparent: event.traceparent,
      },
    });
  });

  it("the fast path publishes right after commit with the AMQP message id, type and trace headers", async () => {
    const counter = await countDeliveries(ROUTED_QUEUE);
    const publisher = orderPublisher();
    // A long poll interval: only the after-commit wake-up can publish within the test's deadline.
    const relay = createRelay({
      log: silentLogger,
      pool: db.pool,
      publisher,
      config: { pollIntervalMs: 60_000 },
    });
    await publisher.waitUntilConnected(10_000);
    relay.start();
    try {
      const t0 = Date.now();
      const event = buildEvent({ causationId: "0b7c4c1e-8f43-4a57-9a51-2f1f0f0a7c11", schemaVersion: 3 });
      const id = await withOutbox(
        (fn) => pgTransaction(db.pool, fn),
        (ids) => relay.afterCommit(ids),
        (_tx, add) => add(event),
      );
      await eventually("the row marked sent", async () => {
        const r = await db.pool.query("SELECT status FROM outbox WHERE message_id = $1", [id]);
        return r.rows[0]?.status === 1;
      });
      await eventually("the delivery", () => counter.published.has(id));
      expect(Date.now() - t0).toBeLessThan(5_000);
      const m = counter.messages.get(id);
      expect(m?.routingKey).toBe("order.created");
      expect(JSON.parse(m?.body ?? "null")).toEqual(event.payload);
      expect(m?.properties).toMatchObject({
        messageId: id,
        type: "order.created",
        correlationId: event.correlationId,
        contentType: "application/json",
        deliveryMode: 2,
        headers: {
          "x-schema-version": 3,
          "x-aggregate-type": "order",
          "x-aggregate-id": event.aggregateId,
          "x-causation-id": event.causationId,
          traceparent: event.traceparent,
        },
      });
    } finally {
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  });

  it("markDone marks the row a reply names as its causation, once, and ignores unknown ids", async () => {
    const id = await pgTransaction(db.pool, (tx) => enqueue(tx, buildEvent()));
    await db.pool.query("UPDATE outbox SET status = 1, sent_at = now() WHERE message_id = $1", [id]);
    expect(await pgTransaction(db.pool, (tx) => markDone(tx, id))).toBe(1);
    expect(await pgTransaction(db.pool, (tx) => markDone(tx, id))).toBe(0);
    expect(await pgTransaction(db.pool, (tx) => markDone(tx, "not-a-uuid"))).toBe(0);
    const r = await db.pool.query("SELECT status, done_at FROM outbox WHERE message_id = $1", [id]);
    expect(r.rows[0].status).toBe(2);
    expect(r.rows[0].done_at).toBeInstanceOf(Date);
  });
});

import { openStack, waitFor } from "@orderflow/infra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupInbox, type Handlers } from "../src/index.ts";
import { type AdminBroker, openAdminBroker, purgeAll } from "./helpers/broker.ts";
import { startTestConsumer, WORK_QUEUE } from "./helpers/consumer.ts";
import { createTestDatabase, recordEffect, type TestDatabase } from "./helpers/db.ts";
import { buildOrderCreated } from "./helpers/factories.ts";

const s = openStack();
let db: TestDatabase;
let broker: AdminBroker;

beforeAll(async () => {
  db = await createTestDatabase(s, "lifecycle");
  broker = await openAdminBroker(s);
  await purgeAll(broker, WORK_QUEUE);
});
afterAll(async () => {
  await purgeAll(broker, WORK_QUEUE);
  await broker.close();
  await db.drop();
});

describe("consumer lifecycle", () => {
  it("graceful stop takes no new message, lets the in-flight handler commit, and acks it", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let entered = 0;
    const handlers: Handlers = {
      "order.created": async (ev, tx) => {
        entered += 1;
        await gate;
        await recordEffect(tx, "lifecycle", ev.envelope.messageId, ev.payload.orderId);
      },
    };
    const c = await startTestConsumer(s, db, { consumerName: "lifecycle", handlers, prefetch: 1 });
    try {
      const first = await broker.publishEvent("order.created", buildOrderCreated());
      await waitFor("handler entered", () => entered === 1);
      let stopped = false;
      const stopping = c.stop().then(() => {
        stopped = true;
      });
      const second = await broker.publishEvent("order.created", buildOrderCreated());
      // Intake is cancelled: the second message stays in the queue while the first is still in flight.
      await waitFor("consumer cancelled", () => !c.consumer.health().consuming);
      expect(stopped).toBe(false);
      release();
      await stopping;
      expect(entered).toBe(1);
      expect((await db.effects()).map((e) => e.message_id)).toEqual([first]);
      expect(c.outcomes).toMatchObject([{ kind: "done", messageId: first }]);
      // The first was acked before the channels closed (not redelivered); only the second waits.
      const left = await waitFor("queue settled", async () => {
        const m = await broker.drain(WORK_QUEUE);
        return m.length > 0 ? m : undefined;
      });
      expect(left.map((m) => m.properties.messageId)).toEqual([second]);
    } finally {
      release();
      await c.stop();
    }
  });

  it("inbox cleanup deletes rows older than the retention, in batches", async () => {
    await db.pool.query(
      `INSERT INTO inbox (consumer, message_id, message_type, received_at)
       SELECT 'cleanup', 'old-' || g, 'order.created', now() - interval '10 days' FROM generate_series(1, 5) g`,
    );
    await db.pool.query(
      `INSERT INTO inbox (consumer, message_id, message_type) VALUES ('cleanup', 'new-1', 'order.created'), ('cleanup', 'new-2', 'order.created')`,
    );
    const deleted = await cleanupInbox(db.transaction, { retentionMs: 7 * 24 * 3600_000, batchSize: 2 });
    expect(deleted).toBe(5);
    const rest = await db.pool.query("SELECT message_id FROM inbox WHERE consumer = 'cleanup' ORDER BY 1");
    expect(rest.rows.map((r) => r.message_id)).toEqual(["new-1", "new-2"]);
  });

  it("a channel that stops delivering while messages wait is recycled by the watchdog, and consumption resumes", async () => {
    let armed = true;
    const c = await startTestConsumer(s, db, {
      consumerName: "watchdog",
      silentChannelCheckMs: 1_000,
      // The fault: the broker-side consumer is cancelled behind the runtime's back, as a channel broken
      // during a leader election looks from the client (open, subscribed, silent).
      faults: {
        afterSubscribe: async (ch, tag) => {
          if (!armed) return;
          armed = false;
          await ch.cancel(tag);
        },
      },
    });
    try {
      const id = await broker.publishEvent("order.created", buildOrderCreated());
      await waitFor(
        "applied after the channel was recycled",
        () => c.outcomes.some((o) => o.messageId === id),
        {
          timeoutMs: 15_000,
        },
      );
      expect(c.consumer.health().counts.recycled).toBe(1);
      expect(c.consumer.health().gaps).toHaveLength(1);
      expect((await db.effects()).some((e) => e.message_id === id)).toBe(true);
    } finally {
      await c.stop();
    }
  });
});

import { openStack, waitFor } from "@orderflow/infra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Handlers } from "../src/index.ts";
import { type AdminBroker, openAdminBroker, purgeAll } from "./helpers/broker.ts";
import { startTestConsumer, WORK_QUEUE } from "./helpers/consumer.ts";
import { createTestDatabase, recordEffect, type TestDatabase } from "./helpers/db.ts";
import { buildOrderCreated } from "./helpers/factories.ts";

const s = openStack();
let db: TestDatabase;
let broker: AdminBroker;

beforeAll(async () => {
  db = await createTestDatabase(s, "rejection");
  broker = await openAdminBroker(s);
  await purgeAll(broker, WORK_QUEUE);
});
afterAll(async () => {
  await purgeAll(broker, WORK_QUEUE);
  await broker.close();
  await db.drop();
});

describe("business rejection", () => {
  it("insufficient stock: the handler records its compensating event in the same transaction, the message is acked, and a duplicate records nothing more", async () => {
    const handlers: Handlers = {
      "order.created": async (ev, tx) => {
        // Stands in for writing inventory.rejected to the outbox.
        await recordEffect(tx, "inventory.rejected", ev.envelope.messageId, ev.payload.orderId);
        return { rejected: "insufficient-stock" };
      },
    };
    const c = await startTestConsumer(s, db, { consumerName: "rejecting", handlers });
    try {
      const order = buildOrderCreated({
        lines: [{ sku: "sold-out", quantity: 1000, unitPrice: 1 }],
        total: 1000,
      });
      const id = await broker.publishEvent("order.created", order);
      await broker.publishEvent("order.created", order, { messageId: id });
      await waitFor("two outcomes", () => c.outcomes.length === 2);
      expect(c.outcomes.map((o) => o.kind)).toEqual(["rejected", "duplicate"]);
      expect(await db.effects()).toMatchObject([
        { consumer: "inventory.rejected", message_id: id, order_id: order.orderId },
      ]);
      // Acked: nothing left for redelivery, nothing parked or waiting in a retry tier.
      await waitFor("queues empty", async () => {
        for (const q of [WORK_QUEUE, `${WORK_QUEUE}.parking`, `${WORK_QUEUE}.retry.1s`]) {
          if ((await broker.ch.checkQueue(q)).messageCount !== 0) return false;
        }
        return true;
      });
    } finally {
      await c.stop();
    }
  });
});

// The order service's read model of stock (GET /stock-levels), kept from inventory.stock-changed: an
// ordered stream per SKU whose messages carry whole levels. It follows inventory through the saga, and a
// stream delivered out of order is still applied in it.
import { randomUUID } from "node:crypto";
import { amqpProperties, currentVersion, HEADERS } from "@orderflow/contracts";
import { amqpUrls } from "@orderflow/infra";
import { withConfirmedPublisher } from "@orderflow/testkit/publisher.ts";
import { afterAll, beforeAll, expect, test } from "vitest";
import { api, eventually, openSaga, placeOrder, runId, type Saga, setStock } from "./helpers.ts";

let saga: Saga;
beforeAll(async () => {
  saga = await openSaga();
});
afterAll(async () => {
  await saga?.close();
});

const levelOf = async (sku: string) => {
  const r = await api(saga.url.order, "GET", `/stock-levels/${encodeURIComponent(sku)}`);
  return r.status === 200 ? r.body : undefined;
};
const stockOf = async (sku: string) => (await api(saga.url.inventory, "GET", `/stock/${sku}`)).body;

/** Waits until the read model shows the level inventory holds now, at stream sequence `sequence`. */
const caughtUp = (sku: string, sequence: number) =>
  eventually(`the read model of ${sku} at sequence ${sequence}`, async () => {
    const [level, stock] = await Promise.all([levelOf(sku), stockOf(sku)]);
    return level?.sequence === sequence &&
      level.available === stock.available &&
      level.reserved === stock.reserved
      ? level
      : undefined;
  });

test("the read model follows inventory through a restock, an order and its cancellation", async () => {
  const run = runId();
  const sku = `lvl-${run}`;
  await setStock(saga, sku, 10);
  expect(await caughtUp(sku, 1)).toMatchObject({ sku, available: 10, reserved: 0 });

  const placed = await placeOrder(saga, `lvl-${run}`, [{ sku, quantity: 3, unitPrice: 500 }]);
  const id = placed.body.id as string;
  await eventually("the order confirmed", async () => {
    const o = (await api(saga.url.order, "GET", `/orders/${id}`)).body;
    return o.status === "CONFIRMED" && o.pointsGranted !== null ? o : undefined;
  });
  expect(await caughtUp(sku, 2)).toMatchObject({ available: 7, reserved: 3 });

  expect((await api(saga.url.order, "POST", `/orders/${id}/cancel`)).status).toBe(200);
  expect(await caughtUp(sku, 3)).toMatchObject({ available: 10, reserved: 0 });

  expect((await api(saga.url.order, "GET", "/stock-levels/no-such-sku")).status).toBe(404);
  const all = (await api(saga.url.order, "GET", "/stock-levels")).body.items as { sku: string }[];
  expect(all.map((l) => l.sku)).toContain(sku);
});

test("levels delivered out of their stream's order are applied in it: the newest level stays", async () => {
  const sku = `lvl-${runId()}-late`;
  // Sequences 2 and 3 reach the queue before 1, as after a retry or a redelivery from another node.
  const levels = [
    { sequence: 2, available: 5, reserved: 5 },
    { sequence: 3, available: 4, reserved: 6 },
    { sequence: 1, available: 10, reserved: 0 },
  ];
  await withConfirmedPublisher(amqpUrls(saga.stack), async (p) => {
    for (const l of levels) {
      const messageId = randomUUID();
      const props = amqpProperties({
        messageId,
        type: "inventory.stock-changed",
        schemaVersion: currentVersion("inventory.stock-changed"),
        correlationId: messageId,
        causationId: messageId,
      });
      props.headers[HEADERS.orderingKey] = `stock:${sku}`;
      props.headers[HEADERS.sequence] = l.sequence;
      props.headers[HEADERS.aggregateId] = sku;
      await p.publish({
        exchange: "",
        routingKey: "order.saga-replies",
        body: Buffer.from(JSON.stringify({ sku, available: l.available, reserved: l.reserved })),
        properties: props,
      });
    }
  });
  const level = await eventually("sequence 3 applied", async () => {
    const l = await levelOf(sku);
    return l?.sequence === 3 ? l : undefined;
  });
  expect(level).toMatchObject({ available: 4, reserved: 6 });
  const row = await saga.db.order.query("SELECT out_of_order FROM stock_levels WHERE sku = $1", [sku]);
  expect(row.rows[0]?.out_of_order).toBe(0);
  await saga.db.order.query("DELETE FROM stock_levels WHERE sku = $1", [sku]);
});

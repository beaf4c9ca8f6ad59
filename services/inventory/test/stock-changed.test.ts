// inventory.stock-changed: every change of a SKU's stock writes the level it left, in the transaction that
// made it, numbered in its SKU's stream in the order written; a decision that moves nothing writes none.
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  type Inventory,
  openInventory,
  orderCancelled,
  orderCreated,
  replyTo,
  runId,
  setStock,
} from "./helpers.ts";

let inv: Inventory;
beforeAll(async () => {
  inv = await openInventory();
});
afterAll(async () => {
  await inv?.close();
});

/** The SKU's stream as the outbox holds it (archived rows included), in sequence. */
async function streamOf(sku: string) {
  const r = await inv.db.query<{ ordering_key: string; sequence: string; payload: unknown }>(
    `SELECT ordering_key, sequence::text, payload FROM (
       SELECT ordering_key, sequence, payload FROM outbox
        WHERE event_type = 'inventory.stock-changed' AND aggregate_id = $1
       UNION ALL
       SELECT ordering_key, sequence, payload FROM outbox_archive
        WHERE event_type = 'inventory.stock-changed' AND aggregate_id = $1) s
      ORDER BY sequence`,
    [sku],
  );
  return r.rows.map((x) => ({ key: x.ordering_key, sequence: Number(x.sequence), level: x.payload }));
}

test("a restock, a reservation and a release each write the SKU's new level, numbered in order", async () => {
  const sku = `chg-${runId()}`;
  await setStock(inv, sku, 10);
  const order = orderCreated([{ sku, quantity: 3 }]);
  const created = await inv.publish("order.created", order);
  expect((await replyTo(inv, created.messageId)).event_type).toBe("inventory.reserved");
  const cancel = await inv.publish("order.cancelled", orderCancelled(order));
  expect((await replyTo(inv, cancel.messageId)).event_type).toBe("inventory.released");
  await setStock(inv, sku, 12);

  expect(await streamOf(sku)).toEqual([
    { key: `stock:${sku}`, sequence: 1, level: { sku, available: 10, reserved: 0 } },
    { key: `stock:${sku}`, sequence: 2, level: { sku, available: 7, reserved: 3 } },
    { key: `stock:${sku}`, sequence: 3, level: { sku, available: 10, reserved: 0 } },
    { key: `stock:${sku}`, sequence: 4, level: { sku, available: 12, reserved: 0 } },
  ]);
});

test("an order refused for want of stock, and a cancel with nothing reserved, write no level", async () => {
  const sku = `chg-${runId()}-none`;
  await setStock(inv, sku, 2);
  const order = orderCreated([{ sku, quantity: 5 }]);
  const created = await inv.publish("order.created", order);
  expect((await replyTo(inv, created.messageId)).event_type).toBe("inventory.rejected");
  const cancel = await inv.publish("order.cancelled", orderCancelled(order));
  expect((await replyTo(inv, cancel.messageId)).event_type).toBe("inventory.released");

  expect((await streamOf(sku)).map((s) => s.sequence)).toEqual([1]);
});

// The replies inventory publishes, as they arrive on the broker: a temporary queue of the test's own,
// bound to the reply routing keys, sees each one with its AMQP properties and headers.
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  expectReplyOnWire,
  type Inventory,
  openInventory,
  orderCancelled,
  orderCreated,
  type ReplyTap,
  runId,
  setStock,
  tapReplies,
} from "./helpers.ts";

let inv: Inventory;
let tap: ReplyTap;
beforeAll(async () => {
  inv = await openInventory();
  tap = await tapReplies(inv, ["inventory.reserved", "inventory.rejected", "inventory.released"]);
});
afterAll(async () => {
  await tap?.close();
  await inv?.close();
});

test("order.created that fits the stock is answered on the wire by inventory.reserved", async () => {
  const sku = `wire-${runId()}`;
  await setStock(inv, sku, 3);
  const order = orderCreated([{ sku, quantity: 3 }]);
  const sent = await inv.publish("order.created", order);
  const body = await expectReplyOnWire(inv, sent, "inventory.reserved", await tap.next(sent.messageId));
  // v2: the customer and total ride along, for points, which grants on this reply.
  expect(body).toEqual({
    orderId: order.orderId,
    lines: [{ sku, quantity: 3 }],
    customerId: order.customerId,
    total: order.total,
  });
});

test("order.created that does not fit is answered on the wire by inventory.rejected with the reason", async () => {
  const sku = `wire-${runId()}-short`;
  await setStock(inv, sku, 0);
  const order = orderCreated([{ sku, quantity: 1 }]);
  const sent = await inv.publish("order.created", order);
  const body = await expectReplyOnWire(inv, sent, "inventory.rejected", await tap.next(sent.messageId));
  expect(body).toEqual({
    orderId: order.orderId,
    reason: `insufficient stock for ${sku}: 0 available, 1 wanted`,
    sku,
  });
});

test("order.cancelled is answered on the wire by inventory.released in the same saga", async () => {
  const sku = `wire-${runId()}-cancel`;
  await setStock(inv, sku, 2);
  const order = orderCreated([{ sku, quantity: 1 }]);
  const created = await inv.publish("order.created", order);
  await tap.next(created.messageId);
  const sent = await inv.publish("order.cancelled", orderCancelled(order), {
    correlationId: created.correlationId,
  });
  const body = await expectReplyOnWire(inv, sent, "inventory.released", await tap.next(sent.messageId));
  expect(body).toEqual({ orderId: order.orderId });
});

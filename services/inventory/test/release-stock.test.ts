// Inventory's release step (order.cancelled -> inventory.released), black-box: events in through the
// broker, effects out through the HTTP API, the service's inbox and its outbox.
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  duplicatesSeen,
  eventually,
  type Inventory,
  inboxHas,
  openInventory,
  orderCancelled,
  orderCreated,
  repliesTo,
  replyTo,
  reservationOf,
  runId,
  setStock,
  stockOf,
} from "./helpers.ts";

let inv: Inventory;
beforeAll(async () => {
  inv = await openInventory();
});
afterAll(async () => {
  await inv?.close();
});

/** Reserves `quantity` of a SKU for a new order, through order.created. */
async function reserved(sku: string, quantity: number) {
  const order = orderCreated([{ sku, quantity }]);
  const created = await inv.publish("order.created", order);
  expect((await replyTo(inv, created.messageId)).event_type).toBe("inventory.reserved");
  return { order, created };
}

test("order.cancelled after a reservation gives the stock back and replies inventory.released", async () => {
  const sku = `rel-${runId()}`;
  await setStock(inv, sku, 10);
  const { order, created } = await reserved(sku, 3);
  expect(await stockOf(inv, sku)).toEqual({ available: 7, reserved: 3 });

  // The cancellation belongs to the same saga: same correlation id, its own message id.
  const sent = await inv.publish("order.cancelled", orderCancelled(order), {
    correlationId: created.correlationId,
  });
  const reply = await replyTo(inv, sent.messageId);
  expect(reply.event_type).toBe("inventory.released");
  expect(reply.payload).toEqual({ orderId: order.orderId });
  expect(reply.headers).toMatchObject({ correlationId: created.correlationId, causationId: sent.messageId });
  expect(await stockOf(inv, sku)).toEqual({ available: 10, reserved: 0 });
  expect((await reservationOf(inv, order.orderId))?.status).toBe("RELEASED");
});

test("a redelivered order.cancelled (same message id) releases once and replies once", async () => {
  const sku = `rel-${runId()}-dup`;
  // Another order holds stock of the same SKU: a second release would wrongly hand back its units.
  await setStock(inv, sku, 10);
  await reserved(sku, 2);
  const { order } = await reserved(sku, 3);
  expect(await stockOf(inv, sku)).toEqual({ available: 5, reserved: 5 });
  const sent = await inv.publish("order.cancelled", orderCancelled(order));
  await replyTo(inv, sent.messageId);
  expect(await stockOf(inv, sku)).toEqual({ available: 8, reserved: 2 });

  const before = await duplicatesSeen(inv, "order.cancelled");
  await inv.redeliver(sent);
  await eventually("the consumer to recognise the redelivery as a duplicate", async () =>
    (await duplicatesSeen(inv, "order.cancelled")) > before ? true : undefined,
  );

  expect(await stockOf(inv, sku)).toEqual({ available: 8, reserved: 2 });
  expect((await repliesTo(inv, sent.messageId)).map((r) => r.event_type)).toEqual(["inventory.released"]);
});

test("a cancel that arrives before its create leaves a tombstone: the late order.created reserves nothing", async () => {
  const sku = `rel-${runId()}-early`;
  await setStock(inv, sku, 10);
  const order = orderCreated([{ sku, quantity: 4 }]);

  const cancel = await inv.publish("order.cancelled", orderCancelled(order, "cancelled before created"));
  // Nothing was reserved, yet the cancellation is still acknowledged: the order service waits for it.
  const ack = await replyTo(inv, cancel.messageId);
  expect(ack.event_type).toBe("inventory.released");
  expect(ack.payload).toEqual({ orderId: order.orderId });
  expect(await reservationOf(inv, order.orderId)).toMatchObject({
    status: "RELEASED",
    reason: "cancelled before created",
  });
  expect(await stockOf(inv, sku)).toEqual({ available: 10, reserved: 0 });

  const late = await inv.publish("order.created", order);
  await eventually("the late order.created to be consumed", async () =>
    (await inboxHas(inv, late.messageId)) ? true : undefined,
  );
  expect(await stockOf(inv, sku)).toEqual({ available: 10, reserved: 0 });
  expect((await reservationOf(inv, order.orderId))?.status).toBe("RELEASED");
  const replies = (await repliesTo(inv, late.messageId)).map((r) => r.event_type);
  expect(replies).not.toContain("inventory.reserved");
});

test("order.cancelled for a rejected order gives nothing back, keeps the rejection and still replies", async () => {
  const sku = `rel-${runId()}-rejected`;
  await setStock(inv, sku, 1);
  const order = orderCreated([{ sku, quantity: 2 }]);
  const created = await inv.publish("order.created", order);
  expect((await replyTo(inv, created.messageId)).event_type).toBe("inventory.rejected");

  const sent = await inv.publish("order.cancelled", orderCancelled(order, "out of stock"));
  const reply = await replyTo(inv, sent.messageId);
  expect(reply.event_type).toBe("inventory.released");
  expect(reply.payload).toEqual({ orderId: order.orderId });
  expect(await stockOf(inv, sku)).toEqual({ available: 1, reserved: 0 });
  expect(await reservationOf(inv, order.orderId)).toMatchObject({
    status: "REJECTED",
    reason: `insufficient stock for ${sku}: 1 available, 2 wanted`,
  });
});

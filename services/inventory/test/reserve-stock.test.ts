// Inventory's reserve step (order.created -> inventory.reserved | inventory.rejected), black-box: the
// event goes in through the broker, effects come out through the HTTP API and the service's outbox.
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  api,
  duplicatesSeen,
  eventually,
  type Inventory,
  openInventory,
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

test("order.created with enough stock reserves every line and replies inventory.reserved", async () => {
  const run = runId();
  const [a, b] = [`res-${run}-a`, `res-${run}-b`];
  await setStock(inv, a, 10);
  await setStock(inv, b, 5);
  // The same SKU on two lines counts once, with the quantities added.
  const order = orderCreated([
    { sku: b, quantity: 2 },
    { sku: a, quantity: 1 },
    { sku: b, quantity: 1 },
  ]);
  const sent = await inv.publish("order.created", order);

  const reply = await replyTo(inv, sent.messageId);
  expect(reply.event_type).toBe("inventory.reserved");
  expect(reply.payload).toEqual({
    orderId: order.orderId,
    lines: [
      { sku: a, quantity: 1 },
      { sku: b, quantity: 3 },
    ],
    customerId: order.customerId,
    total: order.total,
  });
  expect(reply.headers).toMatchObject({ correlationId: sent.correlationId, causationId: sent.messageId });
  expect(await stockOf(inv, a)).toEqual({ available: 9, reserved: 1 });
  expect(await stockOf(inv, b)).toEqual({ available: 2, reserved: 3 });
  expect(await reservationOf(inv, order.orderId)).toMatchObject({
    orderId: order.orderId,
    status: "RESERVED",
    lines: reply.payload.lines,
  });
});

test("a redelivered order.created (same message id) reserves once and replies once", async () => {
  const sku = `res-${runId()}-dup`;
  await setStock(inv, sku, 10);
  const order = orderCreated([{ sku, quantity: 4 }]);
  const sent = await inv.publish("order.created", order);
  await replyTo(inv, sent.messageId);
  expect(await stockOf(inv, sku)).toEqual({ available: 6, reserved: 4 });

  const before = await duplicatesSeen(inv, "order.created");
  await inv.redeliver(sent);
  await eventually("the consumer to recognise the redelivery as a duplicate", async () =>
    (await duplicatesSeen(inv, "order.created")) > before ? true : undefined,
  );

  expect(await stockOf(inv, sku)).toEqual({ available: 6, reserved: 4 });
  expect((await repliesTo(inv, sent.messageId)).map((r) => r.event_type)).toEqual(["inventory.reserved"]);
  expect((await reservationOf(inv, order.orderId))?.status).toBe("RESERVED");
});

test("the same order.created delivered twice at once (both in flight) reserves once", async () => {
  const sku = `res-${runId()}-race`;
  await setStock(inv, sku, 10);
  const order = orderCreated([{ sku, quantity: 3 }]);
  const before = await duplicatesSeen(inv, "order.created");
  // Back to back: the second copy can arrive before the first has committed, so the early-skip cache
  // does not know it yet and the inbox (primary key on the message id) has to catch it.
  const sent = await inv.publish("order.created", order);
  await inv.redeliver(sent);
  await eventually("the consumer to recognise one copy as a duplicate", async () =>
    (await duplicatesSeen(inv, "order.created")) > before ? true : undefined,
  );
  await replyTo(inv, sent.messageId);

  expect(await stockOf(inv, sku)).toEqual({ available: 7, reserved: 3 });
  expect((await repliesTo(inv, sent.messageId)).map((r) => r.event_type)).toEqual(["inventory.reserved"]);
});

test("insufficient stock rejects the order with the reason and leaves every SKU's stock untouched", async () => {
  const run = runId();
  const [plenty, short] = [`res-${run}-plenty`, `res-${run}-short`];
  await setStock(inv, plenty, 10);
  await setStock(inv, short, 2);
  const order = orderCreated([
    { sku: plenty, quantity: 1 },
    { sku: short, quantity: 3 },
  ]);
  const sent = await inv.publish("order.created", order);

  const reply = await replyTo(inv, sent.messageId);
  const reason = `insufficient stock for ${short}: 2 available, 3 wanted`;
  expect(reply.event_type).toBe("inventory.rejected");
  expect(reply.payload).toEqual({ orderId: order.orderId, reason, sku: short });
  // All lines or none: the line that could have been reserved was not.
  expect(await stockOf(inv, plenty)).toEqual({ available: 10, reserved: 0 });
  expect(await stockOf(inv, short)).toEqual({ available: 2, reserved: 0 });
  expect(await reservationOf(inv, order.orderId)).toMatchObject({ status: "REJECTED", reason });
});

test("an unknown SKU rejects the order naming that SKU and reserves nothing", async () => {
  const run = runId();
  const [known, unknown] = [`res-${run}-known`, `res-${run}-never-stocked`];
  await setStock(inv, known, 10);
  const order = orderCreated([
    { sku: known, quantity: 2 },
    { sku: unknown, quantity: 1 },
  ]);
  const sent = await inv.publish("order.created", order);

  const reply = await replyTo(inv, sent.messageId);
  expect(reply.event_type).toBe("inventory.rejected");
  expect(reply.payload).toEqual({ orderId: order.orderId, reason: `unknown SKU ${unknown}`, sku: unknown });
  expect(await stockOf(inv, known)).toEqual({ available: 10, reserved: 0 });
  expect((await api(inv.url, "GET", `/stock/${unknown}`)).status).toBe(404); // not created by the order
  expect(await reservationOf(inv, order.orderId)).toMatchObject({
    status: "REJECTED",
    reason: `unknown SKU ${unknown}`,
  });
});

test("a redelivered order.created that was rejected is not decided again, even once stock has arrived", async () => {
  const sku = `res-${runId()}-late-stock`;
  await setStock(inv, sku, 1);
  const order = orderCreated([{ sku, quantity: 2 }]);
  const sent = await inv.publish("order.created", order);
  expect((await replyTo(inv, sent.messageId)).event_type).toBe("inventory.rejected");

  await setStock(inv, sku, 5);
  const before = await duplicatesSeen(inv, "order.created");
  await inv.redeliver(sent);
  await eventually("the consumer to recognise the redelivery as a duplicate", async () =>
    (await duplicatesSeen(inv, "order.created")) > before ? true : undefined,
  );

  expect(await stockOf(inv, sku)).toEqual({ available: 5, reserved: 0 });
  expect((await reservationOf(inv, order.orderId))?.status).toBe("REJECTED");
  expect((await repliesTo(inv, sent.messageId)).map((r) => r.event_type)).toEqual(["inventory.rejected"]);
});

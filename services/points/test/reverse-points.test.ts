// Points' reverse step (order.cancelled -> points.reversed), black-box: events in through the broker,
// effects out through the HTTP API, the service's inbox and its outbox.
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  duplicatesSeen,
  eventually,
  grantOf,
  inboxHas,
  openPoints,
  orderCancelled,
  orderReserved,
  type Points,
  pointsOf,
  repliesTo,
  replyTo,
  runId,
} from "./helpers.ts";

let svc: Points;
beforeAll(async () => {
  svc = await openPoints();
});
afterAll(async () => {
  await svc?.close();
});

/** Grants points for a new order of `customer`, through its reservation. */
async function granted(customer: string, total: number) {
  const order = orderReserved(total, customer);
  const reserved = await svc.publish("inventory.reserved", order);
  expect((await replyTo(svc, reserved.messageId)).event_type).toBe("points.granted");
  return { order, reserved };
}

test("order.cancelled after a grant takes the points back and replies points.reversed with them", async () => {
  const customer = `rev-${runId()}`;
  await granted(customer, 1_000); // another order's 10 points stay
  const { order, reserved } = await granted(customer, 4_250);
  expect((await pointsOf(svc, customer)).balance).toBe(52);

  const sent = await svc.publish("order.cancelled", orderCancelled(order), {
    correlationId: reserved.correlationId,
  });
  const reply = await replyTo(svc, sent.messageId);
  expect(reply.event_type).toBe("points.reversed");
  expect(reply.payload).toEqual({ orderId: order.orderId, customerId: customer, points: 42 });
  expect(reply.headers).toMatchObject({
    correlationId: reserved.correlationId,
    causationId: sent.messageId,
  });
  expect((await pointsOf(svc, customer)).balance).toBe(10);
  // The grant keeps what it had granted; its status says it was taken back.
  expect(await grantOf(svc, order.orderId)).toMatchObject({ points: 42, status: "REVERSED" });
});

test("a redelivered order.cancelled (same message id) reverses once and replies once", async () => {
  const customer = `rev-${runId()}-dup`;
  await granted(customer, 700);
  const { order } = await granted(customer, 3_000);
  const sent = await svc.publish("order.cancelled", orderCancelled(order));
  await replyTo(svc, sent.messageId);
  expect((await pointsOf(svc, customer)).balance).toBe(7);

  const before = await duplicatesSeen(svc, "order.cancelled");
  await svc.redeliver(sent);
  await eventually("the consumer to recognise the redelivery as a duplicate", async () =>
    (await duplicatesSeen(svc, "order.cancelled")) > before ? true : undefined,
  );

  expect((await pointsOf(svc, customer)).balance).toBe(7);
  expect((await repliesTo(svc, sent.messageId)).map((r) => r.event_type)).toEqual(["points.reversed"]);
});

test("a second order.cancelled for a reversed order (new message id) takes nothing more back", async () => {
  const customer = `rev-${runId()}-twice`;
  await granted(customer, 1_500);
  const { order } = await granted(customer, 2_000);
  const first = await svc.publish("order.cancelled", orderCancelled(order));
  expect((await replyTo(svc, first.messageId)).payload.points).toBe(20);

  const again = await svc.publish("order.cancelled", orderCancelled(order));
  const reply = await replyTo(svc, again.messageId);
  expect(reply.event_type).toBe("points.reversed");
  expect(reply.payload).toEqual({ orderId: order.orderId, customerId: customer, points: 0 });
  expect((await pointsOf(svc, customer)).balance).toBe(15);
});

test("a cancel that arrives before its confirm leaves a tombstone: the late reservation grants nothing", async () => {
  const customer = `rev-${runId()}-early`;
  const order = orderReserved(9_900, customer);

  const cancel = await svc.publish("order.cancelled", orderCancelled(order, "cancelled first", false));
  // Nothing was granted, yet the cancellation is still acknowledged: the order service waits for it.
  const ack = await replyTo(svc, cancel.messageId);
  expect(ack.event_type).toBe("points.reversed");
  expect(ack.payload).toEqual({ orderId: order.orderId, customerId: customer, points: 0 });
  expect(await grantOf(svc, order.orderId)).toMatchObject({ points: 0, status: "REVERSED" });

  const late = await svc.publish("inventory.reserved", order);
  await eventually("the late reservation to be consumed", async () =>
    (await inboxHas(svc, late.messageId)) ? true : undefined,
  );
  // The late confirmation is answered (0 points), so the order service's wait ends, and grants nothing.
  const reply = await replyTo(svc, late.messageId);
  expect(reply.event_type).toBe("points.granted");
  expect(reply.payload).toEqual({ orderId: order.orderId, customerId: customer, points: 0 });
  expect((await pointsOf(svc, customer)).balance).toBe(0);
  expect(await grantOf(svc, order.orderId)).toMatchObject({ points: 0, status: "REVERSED" });
});

// The replies points publishes, as they arrive on the broker: a temporary queue of the test's own, bound
// to the reply routing keys, sees each one with its AMQP properties and headers.
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  expectReplyOnWire,
  openPoints,
  orderCancelled,
  orderConfirmed,
  type Points,
  type ReplyTap,
  tapReplies,
} from "./helpers.ts";

let svc: Points;
let tap: ReplyTap;
beforeAll(async () => {
  svc = await openPoints();
  tap = await tapReplies(svc, ["points.granted", "points.reversed"]);
});
afterAll(async () => {
  await tap?.close();
  await svc?.close();
});

test("order.confirmed is answered on the wire by points.granted with the points", async () => {
  const order = orderConfirmed(4_321);
  const sent = await svc.publish("order.confirmed", order);
  const body = await expectReplyOnWire(svc, sent, "points.granted", await tap.next(sent.messageId));
  expect(body).toEqual({ orderId: order.orderId, customerId: order.customerId, points: 43 });
});

test("order.cancelled is answered on the wire by points.reversed in the same saga", async () => {
  const order = orderConfirmed(1_800);
  const confirmed = await svc.publish("order.confirmed", order);
  await tap.next(confirmed.messageId);
  const sent = await svc.publish("order.cancelled", orderCancelled(order), {
    correlationId: confirmed.correlationId,
  });
  const body = await expectReplyOnWire(svc, sent, "points.reversed", await tap.next(sent.messageId));
  expect(body).toEqual({ orderId: order.orderId, customerId: order.customerId, points: 18 });
});

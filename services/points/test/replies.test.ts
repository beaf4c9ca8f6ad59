// The replies points publishes, as they arrive on the broker: a temporary queue of the test's own, bound
// to the reply routing keys, sees each one with its AMQP properties and headers.
import type { ConsumeMessage } from "amqplib";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  openPoints,
  orderCancelled,
  orderConfirmed,
  type Points,
  type ReplyTap,
  replyTo,
  type Sent,
  tapReplies,
} from "./helpers.ts";

let svc: Points;
let tap: ReplyTap;
beforeAll(async () => {
  svc = await openPoints();
  tap = await tapReplies(svc.stack, ["points.granted", "points.reversed"]);
});
afterAll(async () => {
  await tap?.close();
  await svc?.close();
});

/** What every reply carries: its type as routing key and AMQP type, the saga's correlation id, and the
 * incoming message's id as its causation id; its message id is the outbox row's. */
async function expectReplyTo(sent: Sent, type: string, m: ConsumeMessage) {
  const row = await replyTo(svc, sent.messageId);
  expect(m.fields.exchange).toBe("orderflow.events");
  expect(m.fields.routingKey).toBe(type);
  expect(m.properties.type).toBe(type);
  expect(m.properties.messageId).toBe(row.message_id);
  expect(m.properties.messageId).not.toBe(sent.messageId);
  expect(m.properties.contentType).toBe("application/json");
  expect(m.properties.correlationId).toBe(sent.correlationId);
  expect(m.properties.headers).toMatchObject({
    "x-correlation-id": sent.correlationId,
    "x-causation-id": sent.messageId,
    "x-schema-version": 1,
  });
  const body = JSON.parse(m.content.toString("utf8"));
  expect(body).toEqual(row.payload);
  return body;
}

test("order.confirmed is answered on the wire by points.granted with the points", async () => {
  const order = orderConfirmed(4_321);
  const sent = await svc.publish("order.confirmed", order);
  const body = await expectReplyTo(sent, "points.granted", await tap.next(sent.messageId));
  expect(body).toEqual({ orderId: order.orderId, customerId: order.customerId, points: 43 });
});

test("order.cancelled is answered on the wire by points.reversed in the same saga", async () => {
  const order = orderConfirmed(1_800);
  const confirmed = await svc.publish("order.confirmed", order);
  await tap.next(confirmed.messageId);
  const sent = await svc.publish("order.cancelled", orderCancelled(order), {
    correlationId: confirmed.correlationId,
  });
  const body = await expectReplyTo(sent, "points.reversed", await tap.next(sent.messageId));
  expect(body).toEqual({ orderId: order.orderId, customerId: order.customerId, points: 18 });
});

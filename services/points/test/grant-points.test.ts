// Points' grant step (inventory.reserved -> points.granted), black-box: the event goes in through the
// broker, effects come out through the HTTP API and the service's outbox. order.confirmed (asked for a
// v1 reservation) grants the same way: replies.test.ts and set-based-grant.test.ts.
import { pointsFor } from "@orderflow/contracts";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  duplicatesSeen,
  eventually,
  grantOf,
  openPoints,
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

test("a reservation grants 1 point per whole currency unit of the total and replies points.granted", async () => {
  const order = orderReserved(12_399); // 123.99 -> 123 points, rounded down
  expect(pointsFor(order.total)).toBe(123);
  const sent = await svc.publish("inventory.reserved", order);

  const reply = await replyTo(svc, sent.messageId);
  expect(reply.event_type).toBe("points.granted");
  expect(reply.payload).toEqual({ orderId: order.orderId, customerId: order.customerId, points: 123 });
  expect(reply.headers).toMatchObject({ correlationId: sent.correlationId, causationId: sent.messageId });
  expect(await grantOf(svc, order.orderId)).toMatchObject({
    orderId: order.orderId,
    customerId: order.customerId,
    points: 123,
    status: "GRANTED",
  });
  const account = await pointsOf(svc, order.customerId);
  expect(account.balance).toBe(123);
  expect(account.grants).toMatchObject([{ orderId: order.orderId, points: 123, status: "GRANTED" }]);
});

test("grants of one customer's orders add up on the balance", async () => {
  const customer = `pts-${runId()}-two`;
  const first = orderReserved(2_500, customer);
  const second = orderReserved(99, customer); // under one currency unit: 0 points, still a grant
  const sent = [
    await svc.publish("inventory.reserved", first),
    await svc.publish("inventory.reserved", second),
  ];
  for (const s of sent) await replyTo(svc, s.messageId);

  const account = await pointsOf(svc, customer);
  expect(account.balance).toBe(25);
  expect(account.grants.map((g) => [g.orderId, g.points, g.status]).sort()).toEqual(
    [
      [first.orderId, 25, "GRANTED"],
      [second.orderId, 0, "GRANTED"],
    ].sort(),
  );
});

test("a redelivered reservation (same message id) grants once and replies once", async () => {
  const order = orderReserved(5_000);
  const sent = await svc.publish("inventory.reserved", order);
  await replyTo(svc, sent.messageId);
  expect((await pointsOf(svc, order.customerId)).balance).toBe(50);

  const before = await duplicatesSeen(svc, "inventory.reserved");
  await svc.redeliver(sent);
  await eventually("the consumer to recognise the redelivery as a duplicate", async () =>
    (await duplicatesSeen(svc, "inventory.reserved")) > before ? true : undefined,
  );

  expect((await pointsOf(svc, order.customerId)).balance).toBe(50);
  expect((await pointsOf(svc, order.customerId)).grants).toHaveLength(1);
  expect((await repliesTo(svc, sent.messageId)).map((r) => r.event_type)).toEqual(["points.granted"]);
});

test("the same reservation delivered twice at once (both in flight) grants once", async () => {
  const order = orderReserved(7_777);
  const before = await duplicatesSeen(svc, "inventory.reserved");
  // Back to back: the second copy can arrive before the first has committed, so the early-skip cache
  // does not know it yet and the inbox (primary key on the message id) has to catch it.
  const sent = await svc.publish("inventory.reserved", order);
  await svc.redeliver(sent);
  await eventually("the consumer to recognise one copy as a duplicate", async () =>
    (await duplicatesSeen(svc, "inventory.reserved")) > before ? true : undefined,
  );
  await replyTo(svc, sent.messageId);

  expect((await pointsOf(svc, order.customerId)).balance).toBe(77);
  expect((await repliesTo(svc, sent.messageId)).map((r) => r.event_type)).toEqual(["points.granted"]);
});

test("a second reservation for an already granted order (new message id) grants nothing more and answers with the points granted", async () => {
  const order = orderReserved(3_000);
  const first = await svc.publish("inventory.reserved", order);
  await replyTo(svc, first.messageId);

  // Reconciliation or a replaying producer may send the same fact under a new message id: the inbox
  // cannot catch it, the grant's own state must.
  const again = await svc.publish("inventory.reserved", order, { correlationId: first.correlationId });
  const reply = await replyTo(svc, again.messageId);
  expect(reply.event_type).toBe("points.granted");
  // The answer repeats what was granted: the order service records it as the order's points.
  expect(reply.payload).toMatchObject({ orderId: order.orderId, points: 30 });
  expect((await pointsOf(svc, order.customerId)).balance).toBe(30);
  expect(await grantOf(svc, order.orderId)).toMatchObject({ points: 30, status: "GRANTED" });
});

test("a balance past 2^31 still takes grants: the sum of a customer's grants is BIGINT (once it parked them for good)", async () => {
  const first = orderReserved(100);
  await svc.publish("inventory.reserved", first);
  await eventually("the account exists", async () =>
    (await pointsOf(svc, first.customerId)).balance === 1 ? true : undefined,
  );
  // As if this customer had been granted 2^31 - 1 points over the years.
  await svc.db.query(`UPDATE accounts SET balance = 2147483647 WHERE customer_id = $1`, [first.customerId]);
  const next = orderReserved(10_000, first.customerId);
  const sent = await svc.publish("inventory.reserved", next);
  expect((await replyTo(svc, sent.messageId)).payload).toMatchObject({ points: 100 });
  expect((await pointsOf(svc, first.customerId)).balance).toBe(2_147_483_747);
});

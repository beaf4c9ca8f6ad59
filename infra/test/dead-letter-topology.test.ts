import { randomUUID } from "node:crypto";
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterAll, beforeAll, expect, test } from "vitest";
import { amqpUrls, type Stack } from "../src/index.ts";
import { waitFor } from "../src/proc.ts";
import { type Conn, connectAny, getOne, publishConfirmed, purge } from "./broker-helpers.ts";

const QUEUE = "points.order-events";
const PARKING = `${QUEUE}.parking`;
let s: Stack;
let conn: Conn;

beforeAll(async () => {
  s = await requireHealthyStack();
  await purge(s, [QUEUE, PARKING]);
  conn = await connectAny(amqpUrls(s));
});

afterAll(async () => {
  await conn.close().catch(() => {});
  await purge(s, [QUEUE, PARKING]);
});

type XDeath = { queue: string; reason: string; count: number; exchange: string }[];

test("a message requeued past its delivery limit lands in its parking lot with its death history", async () => {
  const id = randomUUID();
  await publishConfirmed(conn, "orderflow.events", "order.confirmed", "{}", { messageId: id });
  const ch = await conn.createChannel();
  await ch.prefetch(1);
  let deliveries = 0;
  const { consumerTag } = await ch.consume(QUEUE, (m) => {
    if (!m) return;
    deliveries++;
    ch.reject(m, true); // a consumer that keeps failing and requeueing, as packages/messaging does
  });
  const { msg, ch: parkCh, conn: parkConn } = await getOne(amqpUrls(s), PARKING, 60_000);
  await ch.cancel(consumerTag);
  expect(msg.properties.messageId).toBe(id);
  const death = msg.properties.headers?.["x-death"] as XDeath;
  expect(death[0]).toMatchObject({ queue: QUEUE, reason: "delivery_limit" });
  expect(deliveries).toBeGreaterThan(20); // x-delivery-limit: 20 redeliveries, then dead-lettered
  parkCh.ack(msg);
  // Not stuck: the work queue is empty once the message has been parked.
  await waitFor("work queue to drain", async () => (await ch.checkQueue(QUEUE)).messageCount === 0, {
    timeoutMs: 10_000,
  });
  await ch.close();
  await parkConn.close();
});

test("a message sent to a retry tier comes back to its work queue after the tier's delay", async () => {
  const id = randomUUID();
  const sentAt = Date.now();
  await publishConfirmed(conn, "orderflow.retry", `${QUEUE}.retry.1s`, "{}", {
    messageId: id,
    headers: { "x-attempt": 1 },
  });
  const { msg, ch, conn: getConn } = await getOne(amqpUrls(s), QUEUE, 15_000);
  const delay = Date.now() - sentAt;
  expect(msg.properties.messageId).toBe(id);
  expect(msg.properties.headers?.["x-attempt"]).toBe(1);
  expect(delay).toBeGreaterThanOrEqual(1_000);
  const death = msg.properties.headers?.["x-death"] as XDeath;
  expect(death[0]).toMatchObject({ queue: `${QUEUE}.retry.1s`, reason: "expired", count: 1 });
  ch.ack(msg);
  await getConn.close();
});

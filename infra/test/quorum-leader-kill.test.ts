import { randomUUID } from "node:crypto";
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterAll, beforeAll, expect, test } from "vitest";
import { amqpUrls, killBrokerNode, leaderOf, type Stack, startBrokerNode } from "../src/index.ts";
import { connectAny, getOne, publishConfirmed, purge, urlsExcept } from "./broker-helpers.ts";

const QUEUE = "inventory.order-events";
let s: Stack;
let killed: string | undefined;

beforeAll(async () => {
  s = await requireHealthyStack();
  await purge(s, [QUEUE]);
});

afterAll(async () => {
  if (killed) await startBrokerNode(killed, s);
  await purge(s, [QUEUE]);
});

test("a confirmed persistent message survives kill -9 of its queue's leader and is consumed from the other nodes", async () => {
  const id = randomUUID();
  const publisher = await connectAny(amqpUrls(s));
  await publishConfirmed(publisher, "orderflow.events", "order.created", JSON.stringify({ id }), {
    messageId: id,
  });
  await publisher.close().catch(() => {});

  const leader = await leaderOf(s.rabbit, QUEUE);
  const event = await killBrokerNode(leader, s);
  killed = leader;
  expect(event.detail?.node).toBe(leader);

  const { msg, ch, conn } = await getOne(urlsExcept(s, leader), QUEUE, 30_000);
  expect(msg.properties.messageId).toBe(id);
  expect(JSON.parse(msg.content.toString())).toEqual({ id });
  ch.ack(msg);
  await ch.close();
  await conn.close();
  // A new leader was elected among the survivors.
  expect(await leaderOf(s.rabbit, QUEUE)).not.toBe(leader);
});

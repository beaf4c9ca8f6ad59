import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  restartPostgresServer,
  type Stack,
  stackStatus,
  startBrokerNode,
  startRedisServer,
  stopBrokerNode,
  stopRedisServer,
} from "../src/index.ts";

let s: Stack;
beforeAll(async () => {
  s = await requireHealthyStack();
});
afterAll(async () => {
  // Leave the stack as the next test file expects it, whatever failed here.
  await startRedisServer(s);
  for (const n of s.layout.rabbitmq.nodes) await startBrokerNode(n.name, s);
});

test("stop-redis takes Redis down and start-redis brings it back", async () => {
  await stopRedisServer(s);
  expect((await stackStatus(s)).redis).toMatchObject({ healthy: false, pid: null });
  await startRedisServer(s);
  expect((await stackStatus(s)).redis.healthy).toBe(true);
});

test("restart-postgres gives a new postmaster and every role logs in again", async () => {
  const before = (await stackStatus(s)).postgres.pid;
  const event = await restartPostgresServer(s);
  expect(Date.parse(event.finishedAt)).toBeGreaterThanOrEqual(Date.parse(event.startedAt));
  const after = await stackStatus(s);
  expect(after.postgres.pid).not.toBe(before);
  expect(after.postgres.healthy).toBe(true);
});

test("stop-node stops one broker node gracefully and start-node brings it back with every queue member online", async () => {
  const event = await stopBrokerNode("leader:order.saga-replies", s);
  const node = String(event.detail?.node);
  const down = await stackStatus(s);
  expect(down.rabbitmq.nodes.find((n) => n.name === node)).toMatchObject({ running: false, pid: null });
  expect(down.rabbitmq.healthy).toBe(false);
  await startBrokerNode(node, s);
  expect((await stackStatus(s)).rabbitmq.healthy).toBe(true);
});

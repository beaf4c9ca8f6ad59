// healInfrastructure is what the fault lab and the test setup call before each scenario and file, so a
// fault that one of them failed to heal cannot fail everything after it.

import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  healInfrastructure,
  infrastructureDown,
  killBrokerNode,
  type Stack,
  stackStatus,
  stopRedisServer,
} from "../src/index.ts";
import { ctl } from "../src/rabbitmq.ts";

let s: Stack;
beforeAll(async () => {
  s = await requireHealthyStack();
});
afterAll(async () => {
  await healInfrastructure(s);
}, 300_000);

test("a healthy stack is left alone and nothing is reported", async () => {
  const pids = (await stackStatus(s)).rabbitmq.nodes.map((n) => n.pid);
  expect(await healInfrastructure(s)).toEqual([]);
  expect((await stackStatus(s)).rabbitmq.nodes.map((n) => n.pid)).toEqual(pids);
});

test("a killed broker node and a stopped Redis are found, started, and the cluster is whole again", async () => {
  const node = s.layout.rabbitmq.nodes[1]?.name as string;
  await killBrokerNode(node, s);
  await stopRedisServer(s);
  expect(infrastructureDown(s).sort()).toEqual([node, "redis"].sort());

  expect((await healInfrastructure(s)).sort()).toEqual([node, "redis"].sort());
  const after = await stackStatus(s);
  expect(after.redis.healthy).toBe(true);
  expect(after.rabbitmq.healthy).toBe(true);
}, 300_000);

test("a node that is alive but out of the cluster (its app stopped) is restarted", async () => {
  const n = s.layout.rabbitmq.nodes[2];
  if (!n) throw new Error("no third node");
  const r = await ctl(s.rabbit, "rabbitmqctl", n.name, ["stop_app"]);
  expect(r.code).toBe(0);
  const before = (await stackStatus(s)).rabbitmq.nodes.find((x) => x.name === n.name)?.pid;
  expect(before).toBeTruthy(); // alive: nothing looks down by its process
  expect(infrastructureDown(s)).toEqual([]);

  const logged: string[] = [];
  await healInfrastructure(s, (m) => logged.push(m));
  expect(logged.join("\n")).toContain(`restarting ${n.name}`);
  const after = await stackStatus(s);
  expect(after.rabbitmq.healthy).toBe(true);
  expect(after.rabbitmq.nodes.find((x) => x.name === n.name)?.pid).not.toBe(before);
}, 300_000);

// The fault controller that `pnpm stack chaos` and the control service share: bad requests are refused
// with 400 before anything happens, requests that contradict the live state with 409, timed faults undo
// themselves, and kills reach the real processes. Against the running stack.

import {
  appsStatus,
  type BrokerNodeLayout,
  nodePid,
  readHeld,
  readState,
  redisPid,
  type Stack,
  stackStatus,
  startBrokerNode,
  startRedisServer,
} from "@orderflow/infra";
import { runCli } from "@orderflow/testkit/cli-process.ts";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createFaultController, type FaultController } from "../src/faults/book.ts";

let s: Stack;
let faults: FaultController;
beforeAll(async () => {
  s = await requireHealthyStack();
  faults = createFaultController(s);
});
afterAll(async () => {
  // Leave the stack as the next test file expects it, whatever failed here.
  await faults.close();
  await startRedisServer(s);
  for (const n of s.layout.rabbitmq.nodes) await startBrokerNode(n.name, s);
}, 300_000);

test.each([
  ["not an object", "a JSON object"],
  [{ action: "explode" }, 'unknown chaos action "explode"'],
  [{ action: "stop-redis", force: true }, "unknown field(s) force"],
  [{ action: "kill-node" }, "kill-node needs a target: <rabbit-N|leader:QUEUE>"],
  [{ action: "stop-broker", target: "rabbit-1" }, 'stop-broker takes no target, got "rabbit-1"'],
  [{ action: "kill-node", target: "rabbit-9" }, 'unknown broker node "rabbit-9"'],
  [{ action: "stop-node", target: "leader:no.such.queue" }, 'unknown queue "no.such.queue"'],
  [{ action: "kill", target: "billing" }, 'unknown app "billing"'],
  [{ action: "stop-node", target: "rabbit-1", durationS: 0 }, "between 1 and 600"],
  [{ action: "stop-node", target: "rabbit-1", durationS: 601 }, "between 1 and 600"],
  [{ action: "stop-node", target: "rabbit-1", durationS: "5" }, "durationS must be a number"],
  [{ action: "start-broker", durationS: 5 }, "start-broker has no undo"],
  [{ action: "kill", target: "order", durationS: 5 }, "kill has no undo"],
])("%j is refused with 400 and nothing is done", async (request, message) => {
  const pids = s.layout.rabbitmq.nodes.map((n) => nodePid(n));
  await expect(faults.apply(request)).rejects.toMatchObject({
    status: 400,
    code: "VALIDATION_FAILED",
    message: expect.stringContaining(message),
  });
  expect(s.layout.rabbitmq.nodes.map((n) => nodePid(n))).toEqual(pids);
  expect(faults.history()).toEqual([]);
});

test("actions that contradict the live state are refused with 409: start-node of a running node, start-redis, start-broker", async () => {
  const first = s.layout.rabbitmq.nodes[0] as BrokerNodeLayout;
  const pid = nodePid(first);
  for (const [request, message] of [
    [{ action: "start-node", target: "rabbit-1" }, "rabbit-1@localhost is already running"],
    [{ action: "start-redis" }, "redis is already running"],
    [{ action: "start-broker" }, "every broker node is running"],
  ] as const)
    await expect(faults.apply(request)).rejects.toMatchObject({
      status: 409,
      code: "INVALID_STATE",
      message: expect.stringContaining(message),
    });
  expect(nodePid(first)).toBe(pid);
});

test("a timed stop-node takes the leader's node down, holds it, and brings it back by itself", async () => {
  const fault = await faults.apply({
    action: "stop-node",
    target: "leader:order.saga-replies",
    durationS: 2,
  });
  const node = String(fault.detail?.node);
  expect(fault).toMatchObject({ action: "stop-node", target: "leader:order.saga-replies", durationS: 2 });
  expect(Date.parse(fault.undoAt ?? "")).toBe(Date.parse(fault.finishedAt) + 2_000);
  expect(faults.active().map((f) => f.id)).toEqual([fault.id]);
  const down = await stackStatus(s);
  expect(down.rabbitmq.nodes.find((n) => n.name === node)).toMatchObject({ running: false, pid: null });
  // The node is the timed fault's until its undo: a start-node now would race it.
  await expect(faults.apply({ action: "start-node", target: node })).rejects.toMatchObject({
    status: 409,
    message: expect.stringContaining(`held by a timed stop-node (${fault.id})`),
  });

  const undone = await faults.undone(fault.id);
  expect(undone?.undoError).toBeUndefined();
  expect(Date.parse(undone?.undoneAt ?? "")).toBeGreaterThanOrEqual(Date.parse(fault.undoAt ?? ""));
  expect(faults.active()).toEqual([]);
  expect(faults.history().find((f) => f.id === fault.id)?.undoneAt).toBe(undone?.undoneAt);
  const after = await stackStatus(s);
  expect(after.rabbitmq.nodes.find((n) => n.name === node)?.running).toBe(true);
  expect(after.rabbitmq.healthy).toBe(true);
}, 300_000);

test("kill of a held relay is a 409; started, a kill SIGKILLs it and the supervisor starts a new one", async () => {
  const app = "relay:points";
  if ((await appsStatus(s)).length === 0) throw new Error("the stack runs no apps (started with --no-apps?)");
  // Component tests run with the apps held (testkit/src/services-per-suite.ts); hold it here too when run otherwise.
  if (!readHeld(s.layout).includes(app)) await faults.apply({ action: "stop", target: app });
  await expect(faults.apply({ action: "kill", target: app })).rejects.toMatchObject({
    status: 409,
    message: expect.stringContaining("held stopped"),
  });
  await expect(faults.apply({ action: "stop", target: app })).rejects.toMatchObject({ status: 409 });

  await faults.apply({ action: "start", target: app });
  const before = readState(s.layout)?.apps[app]?.pid;
  const killed = await faults.apply({ action: "kill", target: app });
  expect(killed.detail?.pid).toBe(before);
  const restarted = await eventually(
    `${app} restarted by the supervisor`,
    async () => {
      const a = (await appsStatus(s)).find((x) => x.name === app);
      return a?.healthy && a.pid !== before ? a : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
  expect(restarted.restarts).toBeGreaterThan(0);

  // Held again, as the component tests after this one expect.
  await faults.apply({ action: "stop", target: app });
  expect(readHeld(s.layout)).toContain(app);
  await expect(faults.apply({ action: "start", target: "relay:order", durationS: 3 })).rejects.toMatchObject({
    status: 400,
  });
}, 120_000);

test("`pnpm stack chaos` goes through the same checks: a 409 exits 1 with the reason", async () => {
  const cli = runCli("infra/src/cli.ts", ["chaos", "start-node", "rabbit-2"]);
  expect(await cli.exited).toBe(1);
  expect(cli.output()).toContain("rabbit-2@localhost is already running");
});

test("`pnpm stack chaos stop-redis --for 1` prints the fault, waits for its undo and leaves Redis up", async () => {
  const cli = runCli("infra/src/cli.ts", ["chaos", "stop-redis", "--for", "1"]);
  expect(await cli.exited).toBe(0);
  const lines = cli
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatchObject({ action: "stop-redis", target: "redis", durationS: 1 });
  expect(lines[0]?.undoneAt).toBeUndefined();
  expect(lines[1]).toMatchObject({ id: lines[0]?.id, undoneAt: expect.any(String) });
  expect(redisPid(s.layout)).toBeDefined();
  expect((await stackStatus(s)).redis.healthy).toBe(true);
}, 60_000);

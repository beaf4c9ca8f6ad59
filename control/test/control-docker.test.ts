// The control service's docker backend against a fake Docker Engine API (control-docker-fake.ts): each
// fault reaches the right compose container, conflicts are judged on the containers' state, a timed
// fault is undone, and a missing socket says which setting to fix.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { FaultController } from "@orderflow/lab";
import { createDockerFaultController } from "@orderflow/lab/faults/docker-actions.ts";
import { createDockerEngine } from "@orderflow/lab/faults/docker-engine.ts";
import { createQueueLister } from "@orderflow/lab/faults/docker-management.ts";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildControlApp } from "../src/app.ts";
import { createDockerBackend } from "../src/docker-backend.ts";
import { composeStatus } from "../src/docker-status.ts";
import { type FakeEngine, startFakeEngine } from "./control-docker-fake.ts";

const PROJECT = "orderflow-test";

let engine: FakeEngine;
let faults: FaultController;
let management: http.Server | undefined;

function controller(managementUrls: string[] = []): FaultController {
  return createDockerFaultController({
    engine: createDockerEngine({ socketPath: engine.socketPath, timeoutMs: 5_000 }),
    project: PROJECT,
    managementUrls,
    readyTimeoutMs: 5_000,
    readyPollMs: 50,
  });
}

const posts = (id: string) => engine.calls.filter((c) => c.startsWith(`POST /containers/${id}/`));

async function rejection(p: Promise<unknown>): Promise<{ status?: number; message: string }> {
  try {
    await p;
  } catch (e) {
    return e as { status?: number; message: string };
  }
  throw new Error("expected the request to be refused");
}

beforeEach(async () => {
  engine = await startFakeEngine(PROJECT);
  faults = controller();
});

afterEach(async () => {
  await faults.close();
  await engine.close();
  if (management) await new Promise((r) => management?.close(r));
  management = undefined;
});

describe("docker fault controller", () => {
  it("kill-node rabbit-2 SIGKILLs the container of service rabbitmq-2 and no other", async () => {
    const node2 = engine.byService("rabbitmq-2");
    const fault = await faults.apply({ action: "kill-node", target: "rabbit-2" });

    expect(fault).toMatchObject({ action: "kill-node", target: "rabbit-2", detail: { node: "rabbit-2" } });
    expect(posts(node2.id)).toEqual([`POST /containers/${node2.id}/kill?signal=SIGKILL`]);
    expect(node2.running).toBe(false);
    expect(engine.calls.filter((c) => c.startsWith("POST")).length).toBe(1);
    expect(faults.history().map((f) => f.id)).toEqual([fault.id]);
  });

  it("starts a timed stop-node's container again after its duration", async () => {
    const node1 = engine.byService("rabbitmq-1");
    const fault = await faults.apply({ action: "stop-node", target: "rabbit-1", durationS: 1 });

    expect(node1.running).toBe(false);
    expect(fault.undoAt).toBeDefined();
    expect(faults.active().map((f) => f.id)).toEqual([fault.id]);
    // Held until its undo: a start of the same node now would race it.
    expect((await rejection(faults.apply({ action: "start-node", target: "rabbit-1" }))).status).toBe(409);

    const undone = await faults.undone(fault.id);
    expect(undone?.undoneAt).toBeDefined();
    expect(undone?.undoError).toBeUndefined();
    expect(node1.running).toBe(true);
    expect(posts(node1.id)).toEqual([
      `POST /containers/${node1.id}/stop?t=60`,
      `POST /containers/${node1.id}/start`,
    ]);
    expect(faults.active()).toEqual([]);
  });

  it("answers 409 when the container is already stopped, and acts on nothing", async () => {
    const node3 = engine.byService("rabbitmq-3");
    node3.running = false;

    for (const action of ["stop-node", "kill-node"]) {
      const e = await rejection(faults.apply({ action, target: "rabbit-3" }));
      expect(e.status).toBe(409);
      expect(e.message).toContain("rabbit-3 is not running");
    }
    engine.byService("redis").running = false;
    expect((await rejection(faults.apply({ action: "stop-redis" }))).status).toBe(409);
    expect((await rejection(faults.apply({ action: "start-node", target: "rabbit-1" }))).status).toBe(409);
    expect(engine.calls.filter((c) => c.startsWith("POST"))).toEqual([]);
  });

  it("answers 400 for an unknown action or target and for a duration without an undo", async () => {
    expect((await rejection(faults.apply({ action: "explode" }))).status).toBe(400);
    expect((await rejection(faults.apply({ action: "kill-node", target: "rabbit-7" }))).status).toBe(400);
    expect((await rejection(faults.apply({ action: "kill", target: "billing" }))).status).toBe(400);
    expect((await rejection(faults.apply({ action: "restart-postgres", durationS: 5 }))).status).toBe(400);
    expect(
      (await rejection(faults.apply({ action: "kill-node", target: "leader:no.such.queue" }))).status,
    ).toBe(400);
  });

  it("kill of an app SIGKILLs its container and starts it again, as the local supervisor would", async () => {
    const relay = engine.byService("relay-order");
    await faults.apply({ action: "kill", target: "relay:order" });
    expect(posts(relay.id)).toEqual([
      `POST /containers/${relay.id}/kill?signal=SIGKILL`,
      `POST /containers/${relay.id}/start`,
    ]);
    expect(relay.running).toBe(true);
  });

  it("disconnect detaches an app's container from its networks and connect restores the same aliases", async () => {
    const inventory = engine.byService("inventory");
    const before = structuredClone(inventory.networks);
    await faults.apply({ action: "disconnect", target: "inventory" });
    expect(inventory.networks).toEqual({});
    expect(inventory.running).toBe(true);
    expect((await rejection(faults.apply({ action: "disconnect", target: "inventory" }))).status).toBe(409);
    await faults.apply({ action: "connect", target: "inventory" });
    expect(inventory.networks).toEqual(before);
    expect((await rejection(faults.apply({ action: "connect", target: "inventory" }))).status).toBe(409);
  });

  it("partition isolate-node:rabbit-2 blackholes rabbit-2 and its peers both ways; heal-partition removes only those routes", async () => {
    const [n1, n2, n3] = ["rabbitmq-1", "rabbitmq-2", "rabbitmq-3"].map((s) => engine.byService(s));
    if (!n1 || !n2 || !n3) throw new Error("no broker containers");
    n1.blackholes.add("192.0.2.9"); // a route of its own, which the heal must leave alone
    const fault = await faults.apply({ action: "partition", target: "isolate-node:rabbit-2" });
    expect(fault.detail).toMatchObject({
      focus: "rabbit-2",
      reaches: { "rabbit-1": ["rabbit-3"], "rabbit-2": [], "rabbit-3": ["rabbit-1"] },
    });
    expect([...n2.blackholes].sort()).toEqual([n1.ip, n3.ip].sort());
    expect([...n1.blackholes].sort()).toEqual(["192.0.2.9", n2.ip].sort());
    expect([...n3.blackholes]).toEqual([n2.ip]);
    // Every helper container is removed afterwards.
    const created = engine.calls.filter((c) => c === "POST /containers/create").length;
    expect(engine.calls.filter((c) => /^DELETE \/containers\/h\d+/.test(c))).toHaveLength(created);

    expect((await rejection(faults.apply({ action: "partition", target: "halves" }))).status).toBe(409);
    await faults.apply({ action: "heal-partition" });
    expect([...n1.blackholes]).toEqual(["192.0.2.9"]);
    expect(n2.blackholes.size + n3.blackholes.size).toBe(0);
    expect((await rejection(faults.apply({ action: "heal-partition" }))).status).toBe(409);
    expect((await rejection(faults.apply({ action: "partition", target: "everything" }))).status).toBe(400);
    expect(
      (await rejection(faults.apply({ action: "partition", target: "majorities-ring:rabbit-1" }))).status,
    ).toBe(400);
  });

  it("a timed partition heals itself after its duration", async () => {
    const n1 = engine.byService("rabbitmq-1");
    await faults.apply({ action: "partition", target: "bridge:rabbit-1", durationS: 1 });
    expect(engine.byService("rabbitmq-2").blackholes.size).toBe(1);
    expect(n1.blackholes.size).toBe(0); // the bridge still reaches both sides
    await eventually("the partition healed", () => engine.byService("rabbitmq-2").blackholes.size === 0, {
      timeoutMs: 10_000,
    });
    expect(
      engine.byService("rabbitmq-2").blackholes.size + engine.byService("rabbitmq-3").blackholes.size,
    ).toBe(0);
  });

  it("stop-broker stops the three nodes and start-broker starts them", async () => {
    await faults.apply({ action: "stop-broker" });
    const nodes = ["rabbitmq-1", "rabbitmq-2", "rabbitmq-3"].map((s) => engine.byService(s));
    expect(nodes.every((n) => !n.running)).toBe(true);
    expect((await rejection(faults.apply({ action: "stop-broker" }))).status).toBe(409);
    await faults.apply({ action: "start-broker" });
    expect(nodes.every((n) => n.running)).toBe(true);
  });

  it("resolves leader:QUEUE through the management API with the URL's credentials", async () => {
    let authorization: string | undefined;
    management = http.createServer((req, res) => {
      authorization = req.headers.authorization;
      const body =
        req.url === "/api/queues/orderflow"
          ? [{ name: "order.saga-replies", messages: 7, consumers: 2 }]
          : { name: "order.saga-replies", leader: "rabbit@rabbitmq-3" };
      res.writeHead(req.url?.startsWith("/api/queues/orderflow") ? 200 : 404, {
        "content-type": "application/json",
      });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((r) => management?.listen(0, "127.0.0.1", r));
    const { port } = management.address() as AddressInfo;
    await faults.close();
    // The first URL answers nothing: the lookup moves on to the next node.
    faults = controller(["http://admin:s3cret@127.0.0.1:1", `http://admin:s3cret@127.0.0.1:${port}`]);

    const fault = await faults.apply({ action: "kill-node", target: "leader:order.saga-replies" });
    expect(fault.detail).toMatchObject({ node: "rabbit-3" });
    expect(engine.byService("rabbitmq-3").running).toBe(false);
    expect(authorization).toBe(`Basic ${Buffer.from("admin:s3cret").toString("base64")}`);

    const queues = createQueueLister([`http://admin:s3cret@127.0.0.1:${port}`]);
    expect(await queues()).toEqual([{ name: "order.saga-replies", messages: 7, consumers: 2 }]);
  });
});

describe("compose status", () => {
  it("names nodes, services and relays as the local stack does, down once their container is", async () => {
    await faults.apply({ action: "kill-node", target: "rabbit-2" });
    await faults.apply({ action: "stop", target: "relay:points" });
    const s = await composeStatus(createDockerEngine({ socketPath: engine.socketPath }), PROJECT);
    expect(s.nodes).toEqual([
      { name: "rabbit-1", up: true },
      { name: "rabbit-2", up: false },
      { name: "rabbit-3", up: true },
    ]);
    expect(s.services.filter((x) => !x.up)).toEqual([{ name: "relay:points", kind: "relay", up: false }]);
    expect(s.services).toHaveLength(6);
    expect(s).toMatchObject({ redis: { up: true }, postgres: { up: true } });
  });
});

describe("docker engine client", () => {
  it("names the socket and DOCKER_SOCKET when no socket is there", async () => {
    const missing = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "no-docker-")), "docker.sock");
    const client = createDockerEngine({ socketPath: missing, timeoutMs: 2_000 });
    const e = await rejection(client.listContainers(PROJECT));
    expect(e.message).toContain(missing);
    expect(e.message).toContain("DOCKER_SOCKET");

    const c = createDockerFaultController({ engine: client, project: PROJECT, managementUrls: [] });
    expect((await rejection(c.apply({ action: "stop-redis" }))).message).toContain("DOCKER_SOCKET");
    await c.close();
    fs.rmSync(path.dirname(missing), { recursive: true, force: true });
  });

  it("reports the engine's 304 for a container already in the asked state", async () => {
    const client = createDockerEngine({ socketPath: engine.socketPath });
    const redis = engine.byService("redis");
    expect(await client.start(redis.id)).toBe(false);
    expect(await client.stop(redis.id, 10)).toBe(true);
    expect(await client.stop(redis.id, 10)).toBe(false);
    expect(await client.inspect(redis.id)).toMatchObject({ running: false, status: "exited" });
    const e = await rejection(client.kill(redis.id));
    expect(e.status).toBe(409);
    expect(e.message).toContain("is not running");
  });
});

describe("docker backend through the control app", () => {
  it("answers /flow from the project's containers and the management API, and refuses scenario runs", async () => {
    management = http.createServer((req, res) => {
      const ok = req.url === "/api/queues/orderflow";
      res.writeHead(ok ? 200 : 404, { "content-type": "application/json" });
      res.end(
        JSON.stringify(
          ok
            ? [
                { name: "inventory.order-events", messages: 3, consumers: 1 },
                { name: "inventory.order-events.parking", messages: 2, consumers: 0 },
              ]
            : {},
        ),
      );
    });
    await new Promise<void>((r) => management?.listen(0, "127.0.0.1", r));
    const { port } = management.address() as AddressInfo;
    const noDb = "postgres://orderflow_auditor:x@127.0.0.1:1/none";
    const backend = createDockerBackend({
      socketPath: engine.socketPath,
      project: PROJECT,
      managementUrls: [`http://admin:s3cret@127.0.0.1:${port}`],
      amqpAdminUrls: ["amqp://admin:s3cret@127.0.0.1:1/orderflow"],
      databaseUrls: { order: noDb, inventory: noDb, points: noDb },
      reportsDir: fs.mkdtempSync(path.join(os.tmpdir(), "control-docker-reports-")),
    });
    const token = "docker-backend-test-token";
    const app = await buildControlApp({ ...backend, token });
    try {
      const post = (url: string, payload: unknown) =>
        app.inject({
          method: "POST",
          url,
          payload: payload as object,
          headers: { authorization: `Bearer ${token}` },
        });
      expect((await post("/faults", { action: "kill-node", target: "rabbit-2" })).statusCode).toBe(200);
      const timed = await post("/faults", { action: "stop-redis", durationS: 60 });
      expect(timed.statusCode).toBe(200);

      const flow = (await app.inject({ method: "GET", url: "/flow" })).json();
      expect(flow.nodes).toEqual([
        { name: "rabbit-1", up: true },
        { name: "rabbit-2", up: false },
        { name: "rabbit-3", up: true },
      ]);
      expect(flow.services).toHaveLength(6);
      expect(flow.services.every((x: { up: boolean }) => x.up)).toBe(true);
      expect(flow.redis).toEqual({ up: false });
      expect(flow.postgres).toEqual({ up: true });
      expect(flow.queues).toEqual([{ name: "inventory.order-events", messages: 3, consumers: 1 }]);
      expect(flow.parkingLots).toEqual({ "inventory.order-events.parking": 2 });
      expect(flow.faults.map((f: { id: string }) => f.id)).toEqual([timed.json().fault.id]);
      expect(flow.scenario).toBeNull();
      expect((await app.inject({ method: "GET", url: "/health/ready" })).statusCode).toBe(200);

      // publish-poison: the target is checked like the local one's.
      expect((await post("/faults", { action: "publish-poison", target: "nope" })).statusCode).toBe(400);

      const listed = (await app.inject({ method: "GET", url: "/scenarios" })).json();
      expect(listed.scenarios.map((x: { name: string }) => x.name)).toContain("leader-loss");
      const run = await post("/scenarios/leader-loss/run", {});
      expect(run.statusCode).toBe(409);
      expect(run.headers["content-type"]).toContain("application/problem+json");
      expect(run.json().detail).toContain("pnpm stack up");
      expect((await post("/scenarios/no-such/run", {})).statusCode).toBe(404);
    } finally {
      await app.close();
      await backend.close();
    }
    // Closing undid the timed fault: Redis runs again.
    expect(engine.byService("redis").running).toBe(true);
  });
});

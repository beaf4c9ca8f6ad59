// The production image's build, without Docker: scripts/build-production.sh (what the Dockerfile's build
// stage runs) on a copy of what `docker build .` would be sent, then the compiled order service and its
// outbox relay started from the output as the image starts them (its ENV, its CMD, its Node version)
// against the local stack's PostgreSQL and RabbitMQ, on ports of their own.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { appDefinitions } from "../../src/apps/definitions.ts";
import { amqpUrls, repoRoot, type Stack } from "../../src/index.ts";
import { connectAny } from "../broker-helpers.ts";
import { requireHealthyStack } from "../stack-fixture.ts";
import { copyBuildContext } from "./build-context.ts";
import { filesUnder, importSpecifiers } from "./compiled-imports.ts";
import { nodeVersionOf, parseDockerfile, type Stage, stageCmd, stageEnv } from "./dockerfile.ts";
import { nodeBinary } from "./node-binary.ts";
import { freePort, type Started, startProcess, stopProcess, whileRunning } from "./processes.ts";

const run = promisify(execFile);
const runtime = parseDockerfile(fs.readFileSync(path.join(repoRoot, "Dockerfile"), "utf8")).at(-1) as Stage;
const PACKAGE_DIRS = ["packages", "services"];

let stack: Stack;
let work: string;
let context: string;
let out: string;
let node: string;
const started: Started[] = [];

const packagesIn = (root: string) =>
  PACKAGE_DIRS.flatMap((top) =>
    fs
      .readdirSync(path.join(root, top))
      .filter((n) => fs.existsSync(path.join(root, top, n, "package.json")))
      .map((n) => `${top}/${n}`),
  ).sort();

beforeAll(async () => {
  stack = await requireHealthyStack();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "orderflow-image-"));
  context = path.join(work, "context");
  out = path.join(work, "app");
  copyBuildContext(repoRoot, context);
  // The test runner's NODE_ENV=test must not reach pnpm: under "production" it would skip the compilers.
  const { NODE_ENV: _, ...env } = process.env;
  try {
    await run("sh", ["scripts/build-production.sh", out], {
      cwd: context,
      env,
      timeout: 180_000,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    throw new Error(`scripts/build-production.sh failed:\n${(stdout ?? "").slice(-6000)}\n${stderr ?? ""}`);
  }
  const version = nodeVersionOf(runtime.from);
  if (!version) throw new Error(`the Dockerfile's runtime image ${runtime.from} pins no Node version`);
  node = nodeBinary(version);
}, 300_000);

afterAll(async () => {
  await Promise.all(started.map((p) => stopProcess(p, 5_000)));
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe("the production tree", () => {
  test("holds each package's package.json and dist/ only, with its migrations beside the compiled code", () => {
    expect(fs.readdirSync(out).sort()).toEqual([
      "node_modules",
      "package.json",
      "packages",
      "pnpm-lock.yaml",
      "pnpm-workspace.yaml",
      "services",
    ]);
    expect(packagesIn(out)).toEqual(packagesIn(context));
    for (const pkg of packagesIn(out)) {
      const entries = fs.readdirSync(path.join(out, pkg)).filter((e) => e !== "node_modules");
      expect(entries.sort(), pkg).toEqual(["dist", "package.json"]);
      const sourceMigrations = path.join(context, pkg, "prisma", "migrations");
      if (!fs.existsSync(sourceMigrations)) continue;
      expect(fs.readdirSync(path.join(out, pkg, "dist", "prisma", "migrations")).sort(), pkg).toEqual(
        fs.readdirSync(sourceMigrations).sort(),
      );
    }
    for (const entry of [
      "services/order/dist/src/main.js",
      "services/inventory/dist/src/main.js",
      "services/points/dist/src/main.js",
      "packages/outbox/dist/src/relay-main.js",
    ])
      expect(fs.existsSync(path.join(out, entry)), entry).toBe(true);
  });

  test("has no TypeScript left: every import names a .js file, and every relative one exists", () => {
    const files = PACKAGE_DIRS.flatMap((top) => filesUnder(path.join(out, top), () => true));
    expect(files.filter((f) => f.endsWith(".ts"))).toEqual([]);
    const js = files.filter((f) => f.endsWith(".js"));
    expect(js.length).toBeGreaterThan(100);
    const broken = js.flatMap((file) =>
      importSpecifiers(fs.readFileSync(file, "utf8"))
        .filter(
          (s) => s.endsWith(".ts") || (s.startsWith(".") && !fs.existsSync(path.resolve(file, "..", s))),
        )
        .map((s) => `${path.relative(out, file)}: ${s}`),
    );
    expect(broken).toEqual([]);
  });

  test("installs production dependencies only: no test runner, TypeScript runner or linter", () => {
    const installed = fs.readdirSync(path.join(out, "node_modules", ".pnpm"));
    expect(installed.some((p) => p.startsWith("fastify@"))).toBe(true);
    const devTools = /^(vitest|@vitest\+|tsx|vite|esbuild|@esbuild\+|@biomejs\+|playwright-core)@/;
    expect(installed.filter((p) => devTools.test(p))).toEqual([]);
    // @orderflow/infra is every service's development dependency only.
    expect(fs.existsSync(path.join(out, "services/order/node_modules/@orderflow/infra"))).toBe(false);
  });
});

describe("the compiled order service and its relay, run as the image runs them", () => {
  test("become ready under the image's Node, take an order whose event reaches the broker, and stop on SIGTERM", async () => {
    const [command, ...args] = stageCmd(runtime);
    expect(command).toBe("node");
    const defs = appDefinitions(stack);
    const serviceDef = defs.find((d) => d.name === "order");
    const relayDef = defs.find((d) => d.name === "relay:order");
    if (!serviceDef || !relayDef) throw new Error("the stack defines no order service or no order relay");
    const [port, metricsPort] = [await freePort(), await freePort()];
    // The container's environment: the image's ENV and what docker-compose.yml sets, nothing of ours.
    const image = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...stageEnv(runtime) };
    const service = startProcess("order (compiled)", node, args, {
      cwd: out,
      env: { ...image, ...serviceDef.env, ORDER_PORT: String(port) },
    });
    const relay = startProcess("relay:order (compiled)", node, ["packages/outbox/dist/src/relay-main.js"], {
      cwd: out,
      env: { ...image, ...relayDef.env, OUTBOX_METRICS_PORT: String(metricsPort) },
    });
    started.push(service, relay);
    const url = `http://127.0.0.1:${port}`;

    await whileRunning(
      service,
      `${url}/health/ready`,
      async () => ((await fetch(`${url}/health/ready`)).ok ? true : undefined),
      60_000,
    );
    // Its backlog gauges query the order database at each scrape; amqp.connected is its broker link.
    await whileRunning(
      relay,
      "the relay's outbox_pending gauge",
      async () => {
        const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        return /^outbox_pending \d+$/m.test(text) ? true : undefined;
      },
      30_000,
    );
    await whileRunning(
      relay,
      "the relay's broker connection",
      async () => (relay.output().includes('"event":"amqp.connected"') ? true : undefined),
      30_000,
    );

    const broker = await connectAny(amqpUrls(stack));
    const ch = await broker.createChannel();
    const probe = `production-image-${randomUUID()}`;
    try {
      await ch.assertQueue(probe, { durable: false, arguments: { "x-expires": 60_000 } });
      await ch.bindQueue(probe, "orderflow.events", "order.created");
      const res = await fetch(`${url}/orders`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": probe },
        body: JSON.stringify({ customerId: probe, lines: [{ sku: probe, quantity: 1, unitPrice: 100 }] }),
      });
      const order = (await res.json()) as {
        id: string;
        status: string;
        history: { event: string; detail?: { messageId?: string } }[];
      };
      expect(res.status, JSON.stringify(order)).toBe(201);
      expect(order.status).toBe("PENDING");
      const messageId = order.history.find((h) => h.event === "order.created")?.detail?.messageId;
      expect(messageId).toBeDefined();
      const event = await whileRunning(
        service,
        "order.created on the broker",
        async () => {
          for (let m = await ch.get(probe, { noAck: true }); m; m = await ch.get(probe, { noAck: true }))
            if (m.properties.messageId === messageId) return JSON.parse(m.content.toString()) as unknown;
          return undefined;
        },
        20_000,
      );
      expect(event).toMatchObject({ orderId: order.id, customerId: probe, total: 100 });
    } finally {
      await ch.deleteQueue(probe);
      await broker.close();
    }

    expect(await stopProcess(relay)).toBe(0);
    expect(await stopProcess(service)).toBe(0);
  });
});

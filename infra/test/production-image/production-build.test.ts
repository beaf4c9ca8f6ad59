// The production image's build, without Docker: scripts/build-production.sh (what the Dockerfile's build
// stage runs) on a copy of what `docker build .` would be sent, then the image's six processes (three
// services, three outbox relays) started from the output as the image starts them (its ENV, compiled
// entry points, its Node version) against the local stack's PostgreSQL, Redis and RabbitMQ, on ports of
// their own, and one order driven through the whole saga against them. The stack's own services are held
// stopped while infra tests run, so the compiled ones are then the only consumers of the work queues.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { appDefinitions } from "../../src/apps/definitions.ts";
import { repoRoot, SERVICE_NAMES, type Stack } from "../../src/index.ts";
import { smoke } from "../../src/smoke.ts";
import { copyBuildContext } from "./build-context.ts";
import { type CompiledApp, startCompiledApps, stopCompiledApps, whenReady } from "./compiled-apps.ts";
import { filesUnder, importSpecifiers } from "./compiled-imports.ts";
import { nodeVersionOf, parseDockerfile, type Stage, stageCmd, stageEnv } from "./dockerfile.ts";
import { nodeBinary } from "./node-binary.ts";
import { outboxRowsOf } from "./outbox-of-order.ts";
import { type Started, stopProcess, whileRunning } from "./processes.ts";

const run = promisify(execFile);
const runtime = parseDockerfile(fs.readFileSync(path.join(repoRoot, "Dockerfile"), "utf8")).at(-1) as Stage;
const PACKAGE_DIRS = ["packages", "services"];

let stack: Stack;
let work: string;
let context: string;
let out: string;
let node: string;
const started: Started[] = [];

/** What services/order's GET /orders/:id answers, as far as these tests read it. */
interface OrderView {
  id: string;
  status: string;
  total: number;
  pointsGranted: number | null;
}

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
  // A checkout may carry an .npmrc (registry settings, a token): the build may read it, the tree must not
  // hold it (the first test lists the tree's top level).
  fs.writeFileSync(path.join(context, ".npmrc"), "# registry settings and tokens would be here\n");
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

describe("the six compiled processes, run as the image runs them", () => {
  let apps: CompiledApp[] = [];
  const app = (name: string): CompiledApp => {
    const a = apps.find((x) => x.def.name === name);
    if (!a)
      throw new Error(`no compiled app named ${name} (have: ${apps.map((x) => x.def.name).join(", ")})`);
    return a;
  };
  const get = async <T>(url: string): Promise<T> => {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };

  beforeAll(async () => {
    // The container's environment: the image's ENV and what docker-compose.yml sets, nothing of ours.
    const imageEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...stageEnv(runtime) };
    apps = await startCompiledApps(stack, { tree: out, node, imageEnv, started });
    await Promise.all(apps.map((a) => whenReady(a, 60_000)));
  }, 120_000);

  test("are the three services and three relays, from compiled files of the tree, under the image's Node", async () => {
    expect(apps.map((a) => a.def.name).sort()).toEqual([
      "inventory",
      "order",
      "points",
      "relay:inventory",
      "relay:order",
      "relay:points",
    ]);
    expect(stageCmd(runtime)).toEqual(["node", app("order").entry]);
    for (const a of apps) expect(fs.existsSync(path.join(out, a.entry)), a.entry).toBe(true);
    const version = `v${nodeVersionOf(runtime.from)}`;
    for (const svc of ["order", "inventory", "points"]) {
      const metrics = await (await fetch(`${app(svc).url}/metrics`)).text();
      const reported = /^nodejs_version_info\{[^}]*\bversion="([^"]+)"/m.exec(metrics)?.[1];
      expect(reported, `${svc}'s nodejs_version_info`).toBe(version);
    }
  });

  test("pass the stack's smoke steps that do not concern the stack's own (held) apps", async () => {
    const held = new Set(appDefinitions(stack).map((d) => d.name));
    const ownApp = (step: string) =>
      [...held].some((n) => step === `${n} runs` || step.startsWith(`${n} is ready at `));
    const steps = (await smoke(stack)).filter((s) => !ownApp(s.step));
    // A role per service writes and reads its database, a publish is confirmed and routed, Redis answers.
    expect(steps.length).toBe(SERVICE_NAMES.length + 3);
    expect(steps.filter((s) => !s.ok)).toEqual([]);
  });

  test("take an order through the whole saga: stock reserved, CONFIRMED with points granted, nothing left unfinished", async () => {
    const key = `production-image-${randomUUID()}`;
    const [inventory, order, points] = [app("inventory").url, app("order").url, app("points").url];
    const six = apps.map((a) => a.process);

    const stocked = await fetch(`${inventory}/stock/${key}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ available: 5 }),
    });
    const stockAnswer = await stocked.text();
    expect(stocked.status, stockAnswer).toBe(200);
    const placed = await fetch(`${order}/orders`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ customerId: key, lines: [{ sku: key, quantity: 2, unitPrice: 1250 }] }),
    });
    const created = (await placed.json()) as OrderView;
    expect(placed.status, JSON.stringify(created)).toBe(201);
    expect(created).toMatchObject({ status: "PENDING", total: 2500 });

    const confirmed = await whileRunning(
      six,
      `order ${created.id} CONFIRMED with its points recorded`,
      async () => {
        const o = await get<OrderView>(`${order}/orders/${created.id}`);
        return o.status === "CONFIRMED" && o.pointsGranted !== null ? o : undefined;
      },
      30_000,
    );
    expect(confirmed.pointsGranted).toBe(25); // one point per whole currency unit of 25.00
    expect(await get(`${inventory}/stock/${key}`)).toEqual({ sku: key, available: 3, reserved: 2 });
    expect(await get(`${inventory}/reservations/${created.id}`)).toMatchObject({ status: "RESERVED" });
    expect(await get(`${points}/points/${key}`)).toMatchObject({
      balance: 25,
      grants: [{ orderId: created.id, points: 25, status: "GRANTED" }],
    });

    // Every event of the saga published and answered: no relay or reconciliation has anything left to do.
    const rows = await whileRunning(
      six,
      `every outbox row of order ${created.id} done`,
      async () => {
        const r = await outboxRowsOf(stack, created.id);
        return r.length === 3 && r.every((row) => row.status === 2) ? r : undefined;
      },
      15_000,
    );
    expect(rows.map((r) => `${r.service}:${r.eventType}`)).toEqual([
      "inventory:inventory.reserved",
      "order:order.created",
      "points:points.granted",
    ]);
    // The admin token from the stack's environment opens the compiled service's admin routes.
    const reconciled = await fetch(`${order}/admin/reconcile?olderThanMs=0&orderId=${created.id}`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.secrets.adminToken}` },
    });
    expect(reconciled.status).toBe(200);
    expect(await reconciled.json()).toEqual({ checked: 0, repairs: [], gaveUp: [] });
  });

  test("each stops on SIGTERM with exit code 0", async () => {
    expect(await stopCompiledApps(apps)).toEqual({
      inventory: 0,
      order: 0,
      points: 0,
      "relay:inventory": 0,
      "relay:order": 0,
      "relay:points": 0,
    });
  });
});

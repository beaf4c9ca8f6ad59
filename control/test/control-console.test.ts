// The live console in Debian's Chromium, against the control service of the running stack: it loads
// cleanly, its numbers move while orders flow, and its buttons take a broker node down and back up.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { openStack, repoRoot, startBrokerNode } from "@orderflow/infra";
import { readLoadEnv } from "@orderflow/load/env.ts";
import { ensureChromium, launchChromium } from "@orderflow/testkit/chromium.ts";
import { readTestkitEnv } from "@orderflow/testkit/env.ts";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const env = readTestkitEnv();
const stack = openStack(undefined, false);
const orderUrl = `http://127.0.0.1:${stack.layout.servicePorts.order}`;
const inventoryUrl = `http://127.0.0.1:${stack.layout.servicePorts.inventory}`;
const SCREENSHOT = path.join(repoRoot, "docs", "img", "console.png");
// The node the test kills: not rabbit-1, which the stack's clients list first.
const NODE = "rabbit-3";

interface Control {
  url: string;
  token: string;
}

let browser: Browser | undefined;
let control: Control;
let stopControl: () => Promise<void> = async () => undefined;

/** The control service `stack up` runs, as `stack status --json` reports it; undefined if it is not up. */
function controlOfStack(): Control | undefined {
  let out: string;
  try {
    out = execFileSync("pnpm", ["--silent", "stack", "status", "--json"], {
      cwd: repoRoot,
      encoding: "utf8",
      timeout: 60_000,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (e) {
    // An unhealthy part makes status exit non-zero; its JSON still says where the control service is.
    out = String((e as { stdout?: unknown }).stdout ?? "");
  }
  let c: { url?: string; token?: string; healthy?: boolean } | undefined;
  try {
    c = (JSON.parse(out) as { control?: typeof c }).control;
  } catch {
    return undefined;
  }
  return c?.url && c.token && c.healthy ? { url: c.url.replace(/\/$/, ""), token: c.token } : undefined;
}

async function servesConsole(c: Control): Promise<boolean> {
  try {
    const res = await fetch(`${c.url}/`, { signal: AbortSignal.timeout(5_000) });
    await res.body?.cancel();
    return res.ok && (res.headers.get("content-type") ?? "").startsWith("text/html");
  } catch {
    return false;
  }
}

/** Without the stack's control service (a stack started before it existed): the same app, in this process. */
async function startControlHere(): Promise<Control> {
  const { buildControlApp, createLocalBackend } = await import("../src/app.ts");
  const backend = createLocalBackend(stack, { reportsDir: readLoadEnv().reportsDir, log: () => undefined });
  const token = randomUUID();
  const app = await buildControlApp({ ...backend, token });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("the control app has no TCP address");
  stopControl = async () => {
    await app.close();
    await backend.close();
  };
  return { url: `http://127.0.0.1:${address.port}`, token };
}

async function api<T>(
  method: "GET" | "POST",
  p: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${control.url}${p}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(method === "POST" ? { authorization: `Bearer ${control.token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000),
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function nodeUp(name: string): Promise<boolean> {
  const flow = (await api<{ nodes: { name: string; up: boolean }[] }>("GET", "/flow")).body;
  return flow.nodes.find((n) => n.name === name)?.up === true;
}

/** Posts orders at about `perSecond` until stop() is called; resolves with how many were accepted. */
function postOrders(perSecond: number): { stop: () => Promise<number> } {
  const sku = `console-${randomUUID().slice(0, 8)}`;
  let accepted = 0;
  let running = true;
  const inFlight = new Set<Promise<void>>();
  const loop = (async () => {
    await fetch(`${inventoryUrl}/stock/${sku}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ available: 100_000 }),
    });
    while (running) {
      const p = fetch(`${orderUrl}/orders`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": randomUUID() },
        body: JSON.stringify({
          customerId: `${sku}-customer`,
          lines: [{ sku, quantity: 1, unitPrice: 100 }],
        }),
        signal: AbortSignal.timeout(10_000),
      })
        .then((r) => {
          if (r.status < 300) accepted++;
          return r.body?.cancel();
        })
        .catch(() => undefined)
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
      await new Promise((r) => setTimeout(r, 1000 / perSecond));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      await Promise.all(inFlight);
      return accepted;
    },
  };
}

async function openConsole(): Promise<{ page: Page; errors: string[]; foreign: string[] }> {
  if (!browser) throw new Error("no browser");
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  const foreign: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => {
    if (!r.url().startsWith(control.url) && !r.url().startsWith("data:")) foreign.push(r.url());
  });
  await page.goto(`${control.url}/`);
  return { page, errors, foreign };
}

async function metric(page: Page, name: string): Promise<number> {
  const value = await page.getAttribute(`[data-metric="${name}"]`, "data-value");
  return value ? Number(value) : Number.NaN;
}

beforeAll(async () => {
  ensureChromium(env.chromiumPath, env.isRoot);
  const ofStack = controlOfStack();
  if (ofStack && (await servesConsole(ofStack))) control = ofStack;
  else {
    console.warn(
      `the stack's control service (${ofStack?.url ?? "none"}) serves no console: starting one here`,
    );
    control = await startControlHere();
  }
  browser = await launchChromium(env.chromiumPath);
});

afterAll(async () => {
  await browser?.close();
  // A failed assertion must not leave the node down for the files after this one.
  if (control && !(await nodeUp(NODE).catch(() => true))) await startBrokerNode(NODE, stack);
  await stopControl();
}, 180_000);

describe("the live console", () => {
  it("loads with every tile, chart and fault button, no console errors and nothing fetched from elsewhere", async () => {
    const { page, errors, foreign } = await openConsole();
    for (const tile of ["rabbit-1", "rabbit-2", "rabbit-3", "redis", "postgres", "order", "relay:order"]) {
      await page.waitForSelector(`[data-tile="${tile}"][data-state="up"]`, { timeout: 15_000 });
    }
    expect(await page.locator("[data-tile]").count()).toBe(5 + 6);
    expect(await page.locator(".chart canvas").count()).toBe(4);
    expect(await page.locator(`[data-fault="kill-node"][data-target="${NODE}"]`).count()).toBe(1);
    expect(await page.locator('[data-fault="publish-poison"][data-target="all"]').count()).toBe(1);
    await page.waitForSelector("#scenario-run-button[data-scenario]", { timeout: 15_000 });
    await page.selectOption("#scenario-select", "broker-outage");
    expect(await page.locator('button[data-scenario="broker-outage"]').count()).toBe(1);
    // The stream, not the fallback, feeds the page.
    await page.waitForSelector('#connection[data-state="live"]', { timeout: 10_000 });
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });

  it("shows orders per second above 0 while orders are posted, with the charts drawn (screenshot)", async () => {
    const { page, errors } = await openConsole();
    const load = postOrders(10);
    let accepted = 0;
    try {
      await expect
        .poll(() => metric(page, "orders-per-second"), { timeout: 30_000, interval: 500 })
        .toBeGreaterThan(0);
      await expect
        .poll(() => metric(page, "final-per-second"), { timeout: 30_000, interval: 500 })
        .toBeGreaterThan(0);
      // Twenty seconds of flow on the charts before the picture.
      await expect
        .poll(async () => Number(await page.getAttribute("#charts", "data-samples")), {
          timeout: 40_000,
          interval: 1_000,
        })
        .toBeGreaterThanOrEqual(20);
      expect(Number.isNaN(await metric(page, "latency-p50"))).toBe(false);
      fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
    } finally {
      accepted = await load.stop();
    }
    expect(accepted).toBeGreaterThan(0);
    expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(50_000);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows the API's refusal of a wrong token, forgets that token and asks again at the next action", async () => {
    const { page, errors } = await openConsole();
    // A token as the dialog would have kept it (the project's tsconfig has no DOM lib: a string).
    await page.evaluate(`sessionStorage.setItem("orderflow-control-token", "not-the-control-token")`);
    await page.reload();
    await expect.poll(() => page.locator("#token-button").textContent()).toBe("Forget token");
    // The token is checked before anything is done: this start-node acts on nothing.
    await page.click('[data-fault="start-node"][data-target="rabbit-1"]');
    await expect
      .poll(() => page.locator("#fault-result").getAttribute("data-kind"), { timeout: 30_000 })
      .toBe("error");
    expect(await page.locator("#fault-result").textContent()).toMatch(
      /start-node rabbit-1 refused: 401: A valid bearer token is required/,
    );
    await expect.poll(() => page.locator("#token-button").textContent()).toBe("Set token");
    await page.click('[data-fault="start-node"][data-target="rabbit-1"]');
    await page.waitForSelector("#token-dialog[open]", { timeout: 5_000 });
    await page.click("#token-cancel");
    await expect.poll(() => page.locator("#fault-result").textContent()).toContain("no token given");
    // Chromium reports every 4xx answer to fetch() on the console; that one is expected here.
    expect(errors.filter((e) => !e.includes("status of 401"))).toEqual([]);
    await page.close();
  });

  it("kills a node from its button (asking for the token once): the tile turns down, and start-node brings it back up", async () => {
    expect(await nodeUp(NODE)).toBe(true);
    const { page, errors } = await openConsole();
    const tile = page.locator(`[data-tile="${NODE}"]`);
    await expect.poll(() => tile.getAttribute("data-state"), { timeout: 15_000 }).toBe("up");

    await page.click(`[data-fault="kill-node"][data-target="${NODE}"]`);
    await page.waitForSelector("#token-dialog[open]", { timeout: 5_000 });
    await page.fill("#token-input", control.token);
    await page.click("#token-ok");
    await expect.poll(() => tile.getAttribute("data-state"), { timeout: 30_000 }).toBe("down");
    expect(await tile.textContent()).toContain("down");
    expect(await page.locator("#fault-result").getAttribute("data-kind")).toBe("ok");

    // The token is kept: the second action asks for nothing.
    await page.click(`[data-fault="start-node"][data-target="${NODE}"]:not([data-duration])`);
    expect(await page.locator("#token-dialog[open]").count()).toBe(0);
    await expect.poll(() => tile.getAttribute("data-state"), { timeout: 120_000, interval: 500 }).toBe("up");
    await expect
      .poll(() => page.locator("#fault-result").getAttribute("data-kind"), { timeout: 120_000 })
      .toBe("ok");
    // Other faults may be listed too: the log is the stack's, whoever fired them.
    expect(await page.locator("#fault-log").textContent()).toContain(`start-node ${NODE}`);
    expect(errors).toEqual([]);
    await page.close();
  });
});

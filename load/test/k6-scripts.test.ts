// Each k6 script, executed without k6 (the test suite does not need it installed) through shims of the k6
// modules it imports (test/k6-shim/: synchronous real HTTP, check, sleep, exec, metrics), against the
// running stack and its control service: it seeds stock, sends valid orders, fires its fault timeline
// through POST /faults (the API's history shows each), reads the audit in teardown and passes.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { healInfrastructure, openStack } from "@orderflow/infra";
import { afterAll, describe, expect, test } from "vitest";
import { DEFINED_SCENARIOS, loadDefinition } from "../src/scenario-definitions.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const k6Dir = path.resolve(here, "../k6");
const runner = path.join(here, "k6-shim", "run-script.mjs");
const stack = openStack(undefined, false);
const controlUrl = `http://127.0.0.1:${stack.layout.control.port}`;

/**
 * Shortened timelines: a run of DURATION scales every atS/untilS; FAULT_HOLD_S caps a fault's own
 * length (the broker outage's 20 s). The shim runs one VU, so the orders do not wait for the clock.
 */
const OVERRIDES: Record<string, Record<string, string>> = {
  steady: {},
  "leader-loss": { DURATION: "8s" },
  "broker-outage": { DURATION: "10s", FAULT_HOLD_S: "3" },
  "consumer-crash-loop": { DURATION: "10s" },
  "relay-crash": { DURATION: "10s" },
  "redis-outage": { DURATION: "8s" },
  "db-restart": { DURATION: "10s" },
  "poison-messages": { DURATION: "10s" },
};

interface ShimRequest {
  method: string;
  url: string;
  status: number;
  scenario: string;
  headers: Record<string, string>;
  body: string | null;
  responseBody: string;
}

interface ShimResult {
  error: string | null;
  phases: string[];
  requests: ShimRequest[];
  checks: { name: string; ok: boolean; scenario: string }[];
  thresholds: Record<string, { ok: boolean; value: number }>;
  testFailed: string[];
  auditViolations: number;
  summaryFiles: Record<string, number>;
  setupData: { prefix: string; since: string };
}

interface Fault {
  action: string;
  target: string | null;
  startedAt: string;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "k6-shim-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function runScript(name: string): Promise<ShimResult> {
  const resultFile = path.join(tmp, `${name}.result.json`);
  await promisify(execFile)(process.execPath, [runner, path.join(k6Dir, `${name}.js`), resultFile], {
    env: {
      PATH: process.env.PATH,
      ORDER_URL: `http://127.0.0.1:${stack.layout.servicePorts.order}`,
      INVENTORY_URL: `http://127.0.0.1:${stack.layout.servicePorts.inventory}`,
      CONTROL_URL: controlUrl,
      CONTROL_TOKEN: stack.secrets.controlToken,
      SUMMARY_DIR: tmp,
      SHIM_ORDERS: "6",
      ...OVERRIDES[name],
    },
    // A whole-broker start took 127 s once here (RabbitMQ 3.10's feature-flag sync failing while the
    // three nodes start together, then retried): broker-outage's script ran 134 s of its 170.
    timeout: 270_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(fs.readFileSync(resultFile, "utf8")) as ShimResult;
}

async function faultHistory(): Promise<Fault[]> {
  const res = await fetch(`${controlUrl}/faults`, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { active: Fault[]; history: Fault[] };
  return [...body.history, ...body.active];
}

describe("k6 scripts through the k6 shims, against the stack", () => {
  test.each(DEFINED_SCENARIOS)(
    "%s: valid orders accepted, its faults fired through the API, the audit read and passing",
    async (name) => {
      const def = loadDefinition(name);
      // Start from a whole stack, whatever an earlier test left down.
      await healInfrastructure(stack);
      const startedAt = new Date();
      const r = await runScript(name);
      expect(r.error).toBeNull();
      expect(r.phases).toEqual([
        "setup",
        "orders",
        ...(def.faults.length > 0 ? ["faults"] : []),
        "orders",
        "teardown",
        "handleSummary",
      ]);

      // setup seeded the run's SKUs; every order is of the run's prefix, with its own key, and accepted.
      const { prefix } = r.setupData;
      // (setup asks again while inventory does not answer: a service restarting after a previous fault)
      const seeds = r.requests.filter((q) => q.method === "PUT");
      expect(seeds.every((q) => q.url.includes(`/stock/${prefix}sku-`))).toBe(true);
      expect(new Set(seeds.filter((q) => q.status === 200).map((q) => q.url)).size).toBe(8);
      const orders = r.requests.filter((q) => q.scenario === "orders");
      expect(orders.length).toBe(6);
      const keys = new Set(orders.map((q) => q.headers["idempotency-key"]));
      expect(keys.size).toBe(orders.length);
      for (const q of orders) {
        expect(q.method).toBe("POST");
        const body = JSON.parse(q.body ?? "{}") as { customerId: string; lines: { sku: string }[] };
        expect(body.customerId.startsWith(prefix)).toBe(true);
        expect(body.lines.every((l) => l.sku.startsWith(prefix))).toBe(true);
        if (name !== "db-restart") expect(q.status).toBe(201);
      }
      expect(orders.filter((q) => q.status === 201).length).toBeGreaterThan(0);

      // Every fault of the timeline went through POST /faults with the token, and the API recorded it.
      const fired = r.requests.filter((q) => q.scenario === "faults" && q.method === "POST");
      const firedOk = fired.filter((q) => q.status === 200);
      if (def.faults.length > 0) {
        expect(firedOk.length).toBeGreaterThan(0);
        expect(fired.every((q) => q.headers.authorization === `Bearer ${stack.secrets.controlToken}`)).toBe(
          true,
        );
        const seen = (await faultHistory()).filter((f) => Date.parse(f.startedAt) >= startedAt.getTime());
        for (const step of def.faults)
          expect(
            seen.some(
              (f) => f.action === step.action && (step.target === undefined || f.target === step.target),
            ),
            `${step.action} ${step.target ?? ""} in GET /faults`,
          ).toBe(true);
      } else expect(fired).toEqual([]);

      // teardown read the audit of this run's orders, and it passed.
      const audits = r.requests.filter((q) => q.url.startsWith(`${controlUrl}/audit?`));
      expect(audits.length).toBe(1);
      expect(audits[0]?.url).toContain(`prefix=${encodeURIComponent(prefix)}`);
      expect(audits[0]?.status).toBe(200);
      const audit = JSON.parse(audits[0]?.responseBody ?? "{}") as Record<string, unknown>;
      // On failure, the message carries the audit's violations: which order, and what was wrong with it.
      expect(
        {
          lost: audit.lost,
          duplicated: audit.duplicated,
          unexpected: audit.unexpected,
          unfinished: audit.unfinished,
        },
        JSON.stringify(audit.violations),
      ).toEqual({ lost: 0, duplicated: 0, unexpected: 0, unfinished: 0 });
      expect(r.auditViolations).toBe(0);
      expect(r.testFailed).toEqual([]);
      expect(r.thresholds["audit_violations count==0"]?.ok).toBe(true);
      // The latency thresholds judge a real k6 run: over the shim's six requests p(99) is their maximum,
      // which a cold first request decides.
      const failedThresholds = Object.entries(r.thresholds).filter(
        ([k, t]) => !t.ok && !k.startsWith("http_req_duration"),
      );
      expect(failedThresholds).toEqual([]);
      expect(Object.keys(r.summaryFiles)).toEqual([path.join(tmp, `${name}-summary.json`)]);
    },
    280_000,
  );
});

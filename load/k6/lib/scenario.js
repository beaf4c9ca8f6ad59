// @ts-check
// One load scenario as a k6 test, from its definition (../scenarios/<name>.json, the file `pnpm fault`
// reads too): the orders at a constant arrival rate, the fault timeline through POST /faults beside
// them, thresholds from the definition, and a teardown that lets the system settle, reads the fault
// lab's audit and fails the run when an order was lost, applied twice, unexpected or left unfinished.
import { check, fail, sleep } from "k6";
import exec from "k6/execution";
import http from "k6/http";
import { Counter } from "k6/metrics";
import { readConfig, testIdOf } from "./config.js";
import { getAudit, getFaults, postFault } from "./control.js";
import { idempotencyKey, orderFor, SKUS, STOCK_PER_SKU, skuOf } from "./orders.js";
import { summaryFiles } from "./summary.js";
import { expandTimeline } from "./timeline.js";

/**
 * @typedef {import("./timeline.js").ScenarioDefinition} ScenarioDefinition
 * @typedef {{ runId: string, prefix: string, since: string }} RunData what setup hands every function
 */

// Custom metrics are made in the init context; teardown adds to audit_violations, and its threshold
// (count==0) fails the run like any other threshold.
const auditViolations = new Counter("audit_violations");
const faultsFired = new Counter("faults_fired");
const faultsFailed = new Counter("faults_failed");

/** The audit's counts that must be zero (stuckOutbox: rows a relay never published). */
const MUST_BE_ZERO = /** @type {const} */ (["lost", "duplicated", "unexpected", "unfinished", "stuckOutbox"]);

const ORDERS = "orders";
const FAULTS = "faults";

/**
 * Calls `call` until it answers 2xx, for up to 30 s.
 * @template {{ status: number }} T @param {() => T} call @returns {T}
 */
function retried(call) {
  const until = Date.now() + 30_000;
  for (;;) {
    const r = call();
    if ((r.status >= 200 && r.status < 300) || Date.now() > until) return r;
    sleep(1);
  }
}

/** @param {ScenarioDefinition} def */
export function defineRun(def) {
  const cfg = readConfig(__ENV);
  const runS = cfg.durationS ?? Math.max(def.durationS, def.minDurationS ?? 0);
  const rate = cfg.rate ?? def.rate;
  const settleS = cfg.settleS ?? def.settleS;
  const firings = expandTimeline(def, runS, cfg.faultHoldS);
  // The last timed fault is undone this long after the start; teardown waits for it before auditing.
  const lastUndoS = firings.reduce((m, f) => Math.max(m, f.atS + (f.durationS ?? 0)), 0);
  const scoped = (/** @type {string} */ metric) => `${metric}{scenario:${ORDERS}}`;

  /** @type {import("k6/options").Options} */
  const options = {
    scenarios: {
      [ORDERS]: {
        executor: "constant-arrival-rate",
        exec: "orders",
        rate,
        timeUnit: "1s",
        duration: `${runS}s`,
        preAllocatedVUs: 50,
        // Two seconds of answers at the offered rate, never below 100, as the lab (inFlightCap).
        maxVUs: Math.max(100, Math.ceil(rate * 2)),
        gracefulStop: "20s",
      },
      ...(firings.length === 0
        ? {}
        : {
            [FAULTS]: {
              executor: "per-vu-iterations",
              exec: "faults",
              vus: 1,
              iterations: 1,
              startTime: "0s",
              // Each POST /faults answers when its action is done (start-broker waits for the queues).
              maxDuration: `${Math.ceil(runS + 60 * firings.length)}s`,
            },
          }),
    },
    thresholds: {
      // The orders' requests only: setup's stock, the faults and the audit are not the system under test.
      [scoped("http_req_failed")]: def.thresholds.http_req_failed ?? [],
      [scoped("http_req_duration")]: def.thresholds.http_req_duration ?? [],
      [scoped("checks")]: def.thresholds.checks ?? [],
      audit_violations: ["count==0"],
      ...(firings.length === 0 ? {} : { faults_fired: ["count>0"], faults_failed: ["count==0"] }),
    },
    setupTimeout: "60s",
    teardownTimeout: `${Math.ceil(lastUndoS + settleS + 240)}s`,
    // On every metric of the run. k6 takes the options of the first init context only, so one run has
    // one testid; `--tag testid=...` on the command line replaces it.
    tags: { testid: testIdOf(def.name, cfg, new Date()) },
  };

  /** @returns {RunData} */
  function setup() {
    if (firings.length > 0 && cfg.controlToken === "")
      fail(`CONTROL_TOKEN is required: ${def.name} fires faults through ${cfg.controlUrl}/faults`);
    // The audit needs the control service even without faults: fail now, not after the load. Setup
    // retries for a while: a service the supervisor is restarting answers again within seconds.
    const f = retried(() => getFaults(cfg.controlUrl));
    if (f.status !== 200)
      fail(`the control service at ${cfg.controlUrl} does not answer GET /faults (${f.status})`);
    const runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
    const prefix = `k6-${def.name}-${runId}-`;
    // A little before the first order, whatever the clocks of the k6 host and the control service.
    const since = new Date(Date.now() - 2_000).toISOString();
    for (let i = 0; i < SKUS; i++) {
      const sku = skuOf(prefix, i);
      const res = retried(() =>
        http.put(
          `${cfg.inventoryUrl}/stock/${encodeURIComponent(sku)}`,
          JSON.stringify({ available: STOCK_PER_SKU }),
          {
            headers: { "content-type": "application/json" },
            tags: { name: "PUT /stock/:sku" },
          },
        ),
      );
      if (res.status < 200 || res.status >= 300) fail(`seeding ${sku} failed: ${res.status} ${res.body}`);
    }
    console.log(`${def.name}: run ${prefix} at ${rate}/s for ${runS}s, ${firings.length} fault call(s)`);
    return { runId, prefix, since };
  }

  /** One order: a unique Idempotency-Key per iteration of the whole test. @param {RunData} data */
  function orders(data) {
    const i = exec.scenario.iterationInTest;
    // Several instances (`pnpm stack up --replicas N`): each iteration goes to the next one.
    const base = cfg.orderUrls[i % cfg.orderUrls.length];
    const res = http.post(`${base}/orders`, JSON.stringify(orderFor(data.prefix, i)), {
      headers: { "content-type": "application/json", "idempotency-key": idempotencyKey(data.prefix, i) },
      tags: { name: "POST /orders" },
      timeout: "30s",
    });
    check(res, {
      "order accepted (201, 200 on a replay)": (r) => r.status === 201 || r.status === 200,
      "order answered with its id and status": (r) => {
        try {
          const b = /** @type {{ id?: unknown, status?: unknown }} */ (r.json());
          return typeof b.id === "string" && typeof b.status === "string";
        } catch {
          return false;
        }
      },
    });
  }

  /** The fault timeline, each call at its time from the start of the load. */
  function faults() {
    const t0 = Date.now();
    for (const f of firings) {
      const waitMs = t0 + f.atS * 1000 - Date.now();
      if (waitMs > 0) sleep(waitMs / 1000);
      const a = postFault(cfg.controlUrl, cfg.controlToken, f);
      const what = `${f.action}${f.target ? ` ${f.target}` : ""}`;
      if (a.status === 200) {
        faultsFired.add(1, { action: f.action });
        console.log(
          `${def.name}: t=${((Date.now() - t0) / 1000).toFixed(1)}s fault ${what} (id ${a.body?.fault?.id})`,
        );
      } else if (f.repeated && a.status === 409) {
        console.log(`${def.name}: skip ${what}: ${a.body?.detail ?? "conflict"}`);
      } else {
        faultsFailed.add(1, { action: f.action });
        console.error(`${def.name}: fault ${what} refused: ${a.status} ${JSON.stringify(a.body)}`);
      }
    }
  }

  /** Waits (bounded) until no timed fault is active, so the audit sees the whole system again. */
  function waitForUndone() {
    const until = Date.now() + (lastUndoS + 120) * 1000;
    while (Date.now() < until) {
      const a = getFaults(cfg.controlUrl);
      if (a.status === 200 && Array.isArray(a.body?.active) && a.body.active.length === 0) return;
      sleep(1);
    }
    console.error(`${def.name}: timed faults still active; auditing anyway`);
  }

  /** @param {RunData} data */
  function teardown(data) {
    if (firings.length > 0) waitForUndone();
    const a = getAudit(cfg.controlUrl, data.since, data.prefix, settleS);
    if (a.status !== 200 || typeof a.body !== "object" || a.body === null) {
      auditViolations.add(1, { count: "unread" });
      exec.test.fail(`${def.name}: the audit could not be read: ${a.status} ${JSON.stringify(a.body)}`);
      return;
    }
    const audit = a.body;
    const counts = Object.fromEntries(MUST_BE_ZERO.map((k) => [k, Number(audit[k] ?? Number.NaN)]));
    const bad = Object.entries(counts).filter(([, v]) => v !== 0);
    const accepted = Number(audit.orders?.accepted ?? 0);
    check(audit, {
      "audit: some orders accepted": () => accepted > 0,
      ...Object.fromEntries(MUST_BE_ZERO.map((k) => [`audit: ${k} = 0`, () => counts[k] === 0])),
    });
    auditViolations.add(0);
    for (const [k, v] of bad) auditViolations.add(Number.isFinite(v) ? v : 1, { count: k });
    if (accepted === 0) auditViolations.add(1, { count: "none accepted" });
    // The audit's own verdict also covers stock and points; a damage there fails the run too.
    const notOk = audit.ok === false && bad.length === 0;
    if (notOk) auditViolations.add(1, { count: "audit not ok" });
    console.log(
      `${def.name}: audit ${JSON.stringify({ ...counts, orders: audit.orders, settledAfterMs: audit.settledAfterMs, parked: audit.parked })}`,
    );
    if (bad.length > 0 || accepted === 0 || notOk)
      exec.test.fail(
        `${def.name}: the audit found ${bad.map(([k, v]) => `${k} ${v}`).join(", ") || (notOk ? "damage" : "no accepted order")}: ${JSON.stringify(audit.violations)}`,
      );
  }

  return {
    options,
    setup,
    orders,
    faults,
    teardown,
    handleSummary: summaryFiles(def, cfg, { runS, rate, settleS, firings }),
  };
}

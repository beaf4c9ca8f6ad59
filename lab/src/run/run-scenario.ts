// Runs one scenario end to end: the apps' environment, seeded stock, the load with the ledger, the
// fault script beside it, the per-second samples, then the bounded audit, the files and the verdict.
import path from "node:path";
import { performance } from "node:perf_hooks";
import { replicasInUse, type Stack, serviceUrlsInUse } from "@orderflow/infra";
import { createJsonlWriter, type LedgerEntry, recordSuccesses } from "@orderflow/load/ledger.ts";
import {
  availabilityDuringFaults,
  backlogRecoveryMs,
  type ExtraSeries,
  faultWindows,
} from "@orderflow/load/report/derive.ts";
import { fmtInFlight } from "@orderflow/load/report/in-flight.ts";
import { reportFigures } from "@orderflow/load/report/render-report.ts";
import { writeJson, writeReport } from "@orderflow/load/report/write-report.ts";
import type { RunResult } from "@orderflow/load/result.ts";
import { startLoad } from "@orderflow/load/runner.ts";
import { DEFAULT_RATE, inFlightCap } from "@orderflow/load/scenario-definitions.ts";
import { absorbedCounters, audit } from "../audit/audit.ts";
import { parkingCounts } from "../audit/parking-counts.ts";
import type { LabTarget } from "../targets/target.ts";
import { alertChecks, alertTitle, allFiredAndResolved, expectedAlerts, faultSpan } from "./alert-checks.ts";
import { NO_ALERT_WATCH, startAlertWatcher, waitUntilInactive } from "./alerts.ts";
import { check } from "./expectations.ts";
import { type InFlightSample, startInFlightProbe } from "./in-flight.ts";
import { retireDamage } from "./retire-damage.ts";
import { startSampler } from "./sampler.ts";
import type { Expectation, Outcome, Scenario } from "./scenario.ts";
import { createWorkload, seedStock } from "./workload.ts";

export interface LabOptions {
  durationMs: number;
  long: boolean;
  /** Overrides the scenario's rate (default: the scenario's, else DEFAULT_RATE). */
  rate?: number;
  /**
   * After the audit, how long sampling may go on until every backlog reads zero, so the report's charts
   * show the drain (default 20 s; the broker's queue figures lag by its statistics interval). The lab's
   * test sets 0: it reads verdicts, not charts.
   */
  drainMs?: number;
  /** Instances of each service and relay (`pnpm fault --replicas N`); default: as many as run now. */
  replicas?: number;
  reportsDir: string;
  log: (line: string) => void;
}

export interface ScenarioRun {
  scenario: Scenario;
  outcome: Outcome;
  expectation: Expectation;
  /** The report's input (for the summary table) and where the files went. */
  series: ExtraSeries[];
  files: { json: string; html: string };
  duplicateRate: number | null;
  recoveryMs: number | null;
  /** The scenario's damage in its own terms (pitfalls and their pairs), null for the others. */
  damage: Record<string, number> | null;
  /** A broker probe's counts, null for scenarios without one. */
  broker: Record<string, number> | null;
  /** What was in flight when each fault action started, in order; absent in runs saved before it was measured. */
  inFlight?: InFlightSample[];
}

/** Every instance of every service (their counters add up), order's first. */
export const serviceUrls = (s: Stack): string[] => {
  const urls = serviceUrlsInUse(s);
  return [...urls.order, ...urls.inventory, ...urls.points];
};

const delta = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, v - (before[k] ?? 0)] as const)
      .filter(([, v]) => v !== 0),
  );

/**
 * Fault healed -> every outbox backlog back to its level before the fault. From the outbox series only:
 * the broker's queue figures (management API) lag by seconds and would hold the figure back.
 */
export function outboxRecoveryMs(series: readonly ExtraSeries[], events: RunResult["events"]): number | null {
  return backlogRecoveryMs(
    series.filter((x) => x.name.startsWith("outbox ")),
    events,
  );
}

/**
 * How long, after the audit and the drain, the lab still waits for the expected alerts to fire and
 * resolve: a resolution needs a scrape and an evaluation (5 s each) after the fault healed, and the
 * audit has usually outlasted that; the bound is for a rule or an Alertmanager that never answers.
 */
const ALERT_WAIT_MS = 90_000;

/** A run whose fault script failed did not test what it claims: it fails, saying why. */
function withFaultScript(e: Expectation, facts: Record<string, unknown>): Expectation {
  if (facts.faultError === undefined) return e;
  const checks = [...e.checks, check("the fault script ran to its end", false, String(facts.faultError))];
  return { passed: false, checks };
}

/** The declared alerts' checks join the scenario's own: a missing alert fails the run like lost orders. */
function withAlerts(e: Expectation, checks: Expectation["checks"]): Expectation {
  if (checks.length === 0) return e;
  return { passed: e.passed && checks.every((c) => c.ok), checks: [...e.checks, ...checks] };
}

/** The scenario as it runs on the target: compose's own parts where it declares them. */
export const onTarget = (sc: Scenario, t: LabTarget): Scenario =>
  t.kind === "compose" && sc.compose ? { ...sc, ...sc.compose } : sc;

export async function runScenario(t: LabTarget, declared: Scenario, lab: LabOptions): Promise<ScenarioRun> {
  const sc = onTarget(declared, t);
  const s = t.stack;
  const o = { ...lab, durationMs: Math.max(lab.durationMs, sc.minDurationMs ?? 0) };
  const runId = new Date().toISOString().replace(/[:.]/g, "-");
  const prefix = `fl-${sc.name}-${Date.now().toString(36)}-`;
  const facts: Record<string, unknown> = {};
  // Each scenario starts from a whole stack, whatever an earlier one (or an operator) left broken.
  const repaired = await t.heal((m) => o.log(`[${sc.name}] ${m}`));
  if (repaired.length > 0) {
    facts.repairedBeforeRun = repaired;
    o.log(`[${sc.name}] found down and started before the run: ${repaired.join(", ")}`);
  }
  const variant = (await sc.apps?.(s, facts)) ?? {};
  // Broker URLs carry credentials: the log shows them masked.
  o.log(`[${sc.name}] apps ${JSON.stringify(variant).replace(/\/\/([^:/@]+):[^@]+@/g, "//$1:***@")}`);
  if (await t.restartAppsWith(variant, o.replicas))
    o.log(`[${sc.name}] apps restarted as that variant${o.replicas ? ` (${o.replicas} of each)` : ""}`);
  const replicas = replicasInUse(s);
  if (replicas > 1) facts.replicas = replicas;

  // Without an Alertmanager (compose without its monitoring profile) the alerts are not checked.
  const amUrl = t.alertmanagerUrl;
  const declaredAlerts = amUrl ? sc.alerts : undefined;
  if (amUrl === undefined && sc.alerts) facts.alertsNotChecked = "no Alertmanager runs on this target";
  if (amUrl && declaredAlerts) {
    const names = [...new Set(declaredAlerts.map((a) => a.name))];
    const still = await waitUntilInactive(amUrl, names, Date.now() + 30_000);
    if (still.length > 0) o.log(`[${sc.name}] still active before the run: ${still.join(", ")}`);
  }

  const work = createWorkload(prefix);
  await seedStock(s, work.initialStock);
  const before = await absorbedCounters(serviceUrls(s));
  const parkedBefore = await parkingCounts(s);
  const dir = path.join(o.reportsDir, sc.name);
  const ledgerFile = createJsonlWriter<LedgerEntry>(path.join(dir, `${runId}.ledger.jsonl`));
  const rate = o.rate ?? sc.rate ?? DEFAULT_RATE;

  const t0 = performance.now();
  const load = startLoad(
    sc.name,
    {
      // Spread over the order service's instances, as a load balancer in front of them would.
      target: serviceUrlsInUse(s).order,
      scenario: {
        executor: "constant-arrival-rate",
        rate,
        duration: o.durationMs,
        preAllocatedVUs: 50,
        maxVUs: inFlightCap(rate),
      },
      timeout: "30s",
      gracefulStop: "20s",
    },
    work.request,
    {
      onSuccess: (info) => {
        recordSuccesses((e) => ledgerFile.write(e))(info);
        work.onSuccess(info);
      },
      onProgress: (p) => {
        if (o.long || p.second % 5 === 4)
          o.log(
            `[${sc.name}] t=${p.second + 1}s offered ${p.offered} done ${p.completed} errors ${p.errors} dropped ${p.dropped} in-flight ${p.inFlight} p99 ${p.p99Us === null ? "-" : `${(p.p99Us / 1000).toFixed(0)}ms`}`,
          );
      },
    },
  );
  const sampler = startSampler(
    s,
    () => performance.now() - t0,
    o.long ? (line) => o.log(`[${sc.name}] ${line}`) : undefined,
  );
  const probe = startInFlightProbe(s, work.prefix, () => performance.now() - t0);
  const inFlight: InFlightSample[] = [];
  const settleMs = sc.settleMs ?? (o.long ? 180_000 : 60_000);
  const alertsWatch = amUrl
    ? startAlertWatcher({
        url: amUrl,
        sinceMs: () => performance.now() - t0,
        // Bounded even if this run throws before stopping it: the load, the settle, the waits, a margin.
        maxMs: o.durationMs + settleMs + ALERT_WAIT_MS + 300_000,
        log: (line) => o.log(`[${sc.name}] ${line}`),
      })
    : NO_ALERT_WATCH;

  let loadDone = false;
  const done = load.result.finally(() => {
    loadDone = true;
  });
  const sleep = async (ms: number) => {
    const until = Date.now() + ms;
    while (!loadDone && Date.now() < until)
      await new Promise((r) => setTimeout(r, Math.min(200, until - Date.now())));
  };
  const fault = (sc.fault ?? (async () => {}))({
    stack: s,
    target: t.kind,
    faults: t.faults,
    durationMs: o.durationMs,
    long: o.long,
    mark: (name, detail) => {
      load.markEvent(name, detail);
      o.log(`[${sc.name}] ${name}`);
    },
    sleep,
    log: (line) => o.log(`[${sc.name}] ${line}`),
    measureInFlight: async (action) => {
      const m = await probe.measure(action);
      inFlight.push(m);
      o.log(`[${sc.name}] in flight before ${action}: ${fmtInFlight(m)} (measured in ${m.tookMs} ms)`);
    },
    facts,
    prefix: work.prefix,
  }).catch((e: unknown) => {
    facts.faultError = e instanceof Error ? e.message : String(e);
    o.log(`[${sc.name}] fault script failed: ${facts.faultError}`);
  });

  let run: RunResult;
  try {
    run = await done;
  } finally {
    await fault; // a script always heals what it broke before the audit starts
    await probe.close();
    await ledgerFile.close();
  }
  // A script that failed may have left its fault in place: heal it, so the audit still reads every
  // database and queue (the scenario fails anyway, below).
  if (facts.faultError !== undefined)
    facts.repairedAfterFault = await t.heal((m) => o.log(`[${sc.name}] ${m}`));
  o.log(
    `[${sc.name}] load done: ${run.summary.iterations.completed} requests, ${run.summary.status["2xx"]} accepted; auditing`,
  );
  // Requests without an answer are asked again with their key, so the ledger holds every order the
  // API committed (a timed-out request is not a lost order unless the API says it never took it).
  facts.resolvedAfterTimeout = await work.resolveUnanswered(serviceUrls(s)[0] as string);
  o.log(`[${sc.name}] unanswered requests asked again: ${JSON.stringify(facts.resolvedAfterTimeout)}`);
  const result = await audit(s, work.ledger(), {
    settleTimeoutMs: settleMs,
    serviceUrls: serviceUrls(s),
    before,
  });
  // Keep sampling (bounded) until the backlog and the queues are empty, so the charts show the drain
  // and the recovery time can be read from them (the broker's queue figures lag a few seconds).
  const drainUntil = Date.now() + (o.drainMs ?? 20_000);
  while (!sampler.drained() && Date.now() < drainUntil) await new Promise((r) => setTimeout(r, 1_000));
  const series = await sampler.stop();
  const expected = expectedAlerts(declaredAlerts, facts, s);
  const span = faultSpan(run.events, run.durationMs);
  if (expected.length > 0 && span !== null) {
    o.log(`[${sc.name}] waiting for alerts ${expected.map(alertTitle).join(", ")} to fire and resolve`);
    const seen = await alertsWatch.waitUntil(
      (alerts) => allFiredAndResolved(expected, alerts, span.injectedMs),
      Date.now() + ALERT_WAIT_MS,
    );
    if (!seen) o.log(`[${sc.name}] gave up waiting for the alerts after ${ALERT_WAIT_MS / 1000} s`);
  }
  const watchedUntilMs = performance.now() - t0;
  const watched = await alertsWatch.stop();
  const parkedDelta = delta(await parkingCounts(s), parkedBefore);
  await sc.cleanup?.(facts, s);
  // The audit has counted a pitfall's damage: retire it, so later scenarios' reconciliation skips it.
  if (sc.kind === "pitfall") facts.retiredOrders = await retireDamage(s, work.prefix);

  const outcome: Outcome = {
    run,
    audit: result,
    parkedDelta,
    availabilityDuringFaults: availabilityDuringFaults(
      run.timeline,
      faultWindows(run.events, run.durationMs),
    ),
    facts,
    alerts: watched.alerts,
  };
  const alertResults = alertChecks(expected, watched.alerts, run.events, run.durationMs, {
    ...watched,
    untilMs: watchedUntilMs,
  });
  const expectation = withAlerts(withFaultScript(sc.expect(outcome), facts), alertResults);
  const handled = result.absorbed.handled ?? 0;
  const dups = result.absorbed.duplicatesCaughtByInbox ?? 0;
  // Per-service differences (audit.ts absorbedSince): with a service restarted in the run, a lower bound
  // on both counts (result.countersLowerBound names it), never one service's restart against another's.
  const duplicateRate = handled + dups > 0 ? dups / (handled + dups) : null;
  const recoveryTimeMs = outboxRecoveryMs(series, run.events);
  const damageFigures = sc.damage?.(outcome);
  const brokerFigures = sc.broker?.(outcome) ?? null;
  const verdict = {
    passed: expectation.passed,
    ...(damageFigures ? { damage: damageFigures } : {}),
    ...(brokerFigures ? { broker: brokerFigures } : {}),
    ...(recoveryTimeMs === null ? {} : { recoveryTimeMs }),
    ...(duplicateRate === null ? {} : { duplicateRate }),
    kind: sc.kind,
    expectation,
    ...result,
  };
  const json = path.join(dir, `${runId}.json`);
  writeJson(json, {
    scenario: sc.name,
    kind: sc.kind,
    summary: sc.summary,
    facts,
    parkedDelta,
    inFlight,
    run,
    series,
    alerts: watched.alerts,
    target: t.kind,
    alertWatch: { url: amUrl ?? null, polls: watched.polls, failedPolls: watched.failedPolls },
    audit: verdict,
  });
  const html = writeReport(path.join(dir, `${runId}.html`), {
    run,
    series,
    audit: verdict,
    alerts: watched.alerts,
    inFlight,
  });
  const recoveryMs = reportFigures({ run, series, audit: verdict }).recoveryMs;
  return {
    scenario: sc,
    outcome,
    expectation,
    series,
    files: { json, html },
    duplicateRate,
    recoveryMs,
    damage: damageFigures ?? null,
    broker: brokerFigures,
    inFlight,
  };
}

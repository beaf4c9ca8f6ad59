// Runs one scenario end to end: the apps' environment, seeded stock, the load with the ledger, the
// fault script beside it, the per-second samples, then the bounded audit, the files and the verdict.
import path from "node:path";
import { performance } from "node:perf_hooks";
import { healInfrastructure, listQueues, restartAppsWith, type Stack } from "@orderflow/infra";
import { absorbedCounters, audit } from "../audit/audit.ts";
import { createJsonlWriter, type LedgerEntry, recordSuccesses } from "../ledger.ts";
import {
  availabilityDuringFaults,
  backlogRecoveryMs,
  type ExtraSeries,
  faultWindows,
} from "../report/derive.ts";
import { reportFigures } from "../report/render-report.ts";
import { writeJson, writeReport } from "../report/write-report.ts";
import type { RunResult } from "../result.ts";
import { startLoad } from "../runner.ts";
import { check } from "./expectations.ts";
import { startSampler } from "./sampler.ts";
import type { Expectation, Outcome, Scenario } from "./scenario.ts";
import { createWorkload, seedStock } from "./workload.ts";

export interface LabOptions {
  durationMs: number;
  long: boolean;
  /** Overrides the scenario's rate. */
  rate?: number;
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
}

export const serviceUrls = (s: Stack) =>
  (["order", "inventory", "points"] as const).map((svc) => `http://127.0.0.1:${s.layout.servicePorts[svc]}`);

/** Messages in each parking lot now. */
export async function parkingCounts(s: Stack): Promise<Record<string, number>> {
  const qs = await listQueues(s.rabbit);
  return Object.fromEntries(qs.filter((q) => q.name.endsWith(".parking")).map((q) => [q.name, q.messages]));
}

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

/** A run whose fault script failed did not test what it claims: it fails, saying why. */
function withFaultScript(e: Expectation, facts: Record<string, unknown>): Expectation {
  if (facts.faultError === undefined) return e;
  const checks = [...e.checks, check("the fault script ran to its end", false, String(facts.faultError))];
  return { passed: false, checks };
}

export async function runScenario(s: Stack, sc: Scenario, lab: LabOptions): Promise<ScenarioRun> {
  const o = { ...lab, durationMs: Math.max(lab.durationMs, sc.minDurationMs ?? 0) };
  const runId = new Date().toISOString().replace(/[:.]/g, "-");
  const prefix = `fl-${sc.name}-${Date.now().toString(36)}-`;
  const facts: Record<string, unknown> = {};
  // Each scenario starts from a whole stack, whatever an earlier one (or an operator) left broken.
  const repaired = await healInfrastructure(s, (m) => o.log(`[${sc.name}] ${m}`));
  if (repaired.length > 0) {
    facts.repairedBeforeRun = repaired;
    o.log(`[${sc.name}] found down and started before the run: ${repaired.join(", ")}`);
  }
  const variant = (await sc.apps?.(s, facts)) ?? {};
  // Broker URLs carry credentials: the log shows them masked.
  o.log(`[${sc.name}] apps ${JSON.stringify(variant).replace(/\/\/([^:/@]+):[^@]+@/g, "//$1:***@")}`);
  if (await restartAppsWith(s, variant)) o.log(`[${sc.name}] apps restarted as that variant`);

  const work = createWorkload(prefix);
  await seedStock(s, work.initialStock);
  const before = await absorbedCounters(serviceUrls(s));
  const parkedBefore = await parkingCounts(s);
  const dir = path.join(o.reportsDir, sc.name);
  const ledgerFile = createJsonlWriter<LedgerEntry>(path.join(dir, `${runId}.ledger.jsonl`));
  const rate = o.rate ?? sc.rate ?? 12;

  const t0 = performance.now();
  const load = startLoad(
    sc.name,
    {
      target: serviceUrls(s)[0] as string,
      scenario: {
        executor: "constant-arrival-rate",
        rate,
        duration: o.durationMs,
        preAllocatedVUs: 50,
        maxVUs: 100,
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
    durationMs: o.durationMs,
    long: o.long,
    mark: (name, detail) => {
      load.markEvent(name, detail);
      o.log(`[${sc.name}] ${name}`);
    },
    sleep,
    log: (line) => o.log(`[${sc.name}] ${line}`),
    facts,
  }).catch((e: unknown) => {
    facts.faultError = e instanceof Error ? e.message : String(e);
    o.log(`[${sc.name}] fault script failed: ${facts.faultError}`);
  });

  let run: RunResult;
  try {
    run = await done;
  } finally {
    await fault; // a script always heals what it broke before the audit starts
    await ledgerFile.close();
  }
  // A script that failed may have left its fault in place: heal it, so the audit still reads every
  // database and queue (the scenario fails anyway, below).
  if (facts.faultError !== undefined)
    facts.repairedAfterFault = await healInfrastructure(s, (m) => o.log(`[${sc.name}] ${m}`));
  o.log(
    `[${sc.name}] load done: ${run.summary.iterations.completed} requests, ${run.summary.status["2xx"]} accepted; auditing`,
  );
  // Requests without an answer are asked again with their key, so the ledger holds every order the
  // API committed (a timed-out request is not a lost order unless the API says it never took it).
  facts.resolvedAfterTimeout = await work.resolveUnanswered(serviceUrls(s)[0] as string);
  o.log(`[${sc.name}] unanswered requests asked again: ${JSON.stringify(facts.resolvedAfterTimeout)}`);
  const result = await audit(s, work.ledger(), {
    settleTimeoutMs: sc.settleMs ?? (o.long ? 180_000 : 60_000),
    serviceUrls: serviceUrls(s),
    before,
  });
  // Keep sampling (bounded) until the backlog and the queues are empty, so the charts show the drain
  // and the recovery time can be read from them (the broker's queue figures lag a few seconds).
  const drainUntil = Date.now() + 20_000;
  while (!sampler.drained() && Date.now() < drainUntil) await new Promise((r) => setTimeout(r, 1_000));
  const series = await sampler.stop();
  const parkedDelta = delta(await parkingCounts(s), parkedBefore);
  await sc.cleanup?.(facts, s);

  const outcome: Outcome = {
    run,
    audit: result,
    parkedDelta,
    availabilityDuringFaults: availabilityDuringFaults(
      run.timeline,
      faultWindows(run.events, run.durationMs),
    ),
    facts,
  };
  const expectation = withFaultScript(sc.expect(outcome), facts);
  // A service that restarted during the run (killed, or crashed with its database) starts its counters
  // again from zero: then after-minus-before is meaningless, and the counts since the restart (a lower
  // bound) are what we have.
  if (Object.values(result.absorbed).some((v) => v < 0)) {
    result.absorbed = Object.fromEntries(
      Object.entries(result.absorbed).map(([k, v]) => [k, v + (before[k] ?? 0)]),
    );
    facts.countersRestarted = true;
  }
  const handled = result.absorbed.handled ?? 0;
  const dups = result.absorbed.duplicatesCaughtByInbox ?? 0;
  const duplicateRate = handled + dups > 0 ? Math.max(0, dups) / (handled + dups) : null;
  const recoveryTimeMs = outboxRecoveryMs(series, run.events);
  const damageFigures = sc.damage?.(outcome);
  const verdict = {
    passed: expectation.passed,
    ...(damageFigures ? { damage: damageFigures } : {}),
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
    run,
    series,
    audit: verdict,
  });
  const html = writeReport(path.join(dir, `${runId}.html`), { run, series, audit: verdict });
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
  };
}

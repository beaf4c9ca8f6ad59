// `pnpm fault summary`: the summary table rebuilt from the latest saved run of each scenario, for
// when scenarios were run one at a time (or a long `all` was interrupted).
import fs from "node:fs";
import path from "node:path";
import { availabilityDuringFaults, type ExtraSeries, faultWindows } from "@orderflow/load/report/derive.ts";
import type { RunResult } from "@orderflow/load/result.ts";
import type { AuditResult } from "../audit/audit.ts";
import type { WatchedAlert } from "./alerts.ts";
import type { InFlightSample } from "./in-flight.ts";
import { outboxRecoveryMs, type ScenarioRun } from "./run-scenario.ts";
import type { Expectation, Scenario } from "./scenario.ts";

interface SavedRun {
  facts: Record<string, unknown>;
  parkedDelta?: Record<string, number>;
  run: RunResult;
  series: ExtraSeries[];
  /** Absent in runs saved before the lab watched Alertmanager. */
  alerts?: WatchedAlert[];
  /** Absent in runs saved before the lab measured it. */
  inFlight?: InFlightSample[];
  audit: AuditResult & {
    expectation: Expectation;
    duplicateRate?: number;
    damage?: Record<string, number>;
    broker?: Record<string, number>;
  };
}

export function latestRuns(reportsDir: string, scenarios: readonly Scenario[]): ScenarioRun[] {
  const runs: ScenarioRun[] = [];
  for (const sc of scenarios) {
    const dir = path.join(reportsDir, sc.name);
    if (!fs.existsSync(dir)) continue;
    const latest = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .at(-1);
    if (!latest) continue;
    const saved = JSON.parse(fs.readFileSync(path.join(dir, latest), "utf8")) as SavedRun;
    const { run, series, audit } = saved;
    runs.push({
      scenario: sc,
      outcome: {
        run,
        audit,
        parkedDelta: saved.parkedDelta ?? {},
        availabilityDuringFaults: availabilityDuringFaults(
          run.timeline,
          faultWindows(run.events, run.durationMs),
        ),
        facts: saved.facts,
        alerts: saved.alerts ?? [],
      },
      expectation: audit.expectation,
      series,
      files: { json: path.join(dir, latest), html: path.join(dir, latest.replace(/\.json$/, ".html")) },
      duplicateRate: audit.duplicateRate ?? null,
      recoveryMs: outboxRecoveryMs(series, run.events),
      damage: audit.damage ?? null,
      broker: audit.broker ?? null,
      ...(saved.inFlight ? { inFlight: saved.inFlight } : {}),
    });
  }
  return runs;
}

// The table across scenarios: the report renderer's figures plus the audit's counts (lost, duplicated)
// and each scenario's verdict against what it expects.
import fs from "node:fs";
import path from "node:path";
import { alertsFired } from "@orderflow/load/report/alert-marks.ts";
import { fmtBroker, fmtDamage, fmtMs, fmtNum, fmtPct } from "@orderflow/load/report/html.ts";
import { inFlightCell } from "@orderflow/load/report/in-flight.ts";
import { reportFigures } from "@orderflow/load/report/render-report.ts";
import { writeSummary } from "@orderflow/load/report/write-report.ts";
import { damage } from "./expectations.ts";
import type { ScenarioRun } from "./run-scenario.ts";

const HEAD = [
  "scenario",
  "kind",
  "offered/s",
  "achieved/s",
  "p99",
  "2xx during fault",
  "in flight at fault",
  "recovery",
  "lost",
  "unfinished",
  "duplicated",
  "unexpected",
  "duplicate rate",
  "damage (own terms)",
  "broker (probe)",
  "alerts fired",
  "verdict",
];

export function summaryRows(runs: readonly ScenarioRun[]): string[][] {
  return runs.map((r) => {
    const f = reportFigures({ run: r.outcome.run, series: r.series });
    const d = damage(r.outcome);
    return [
      r.scenario.name,
      r.scenario.kind,
      fmtNum(f.offeredPerSecond, 1),
      fmtNum(f.achievedPerSecond, 1),
      fmtMs(f.p99Ms),
      fmtPct(r.outcome.availabilityDuringFaults),
      inFlightCell(r.inFlight),
      fmtMs(r.recoveryMs),
      String(d.lost),
      String(d.unfinished),
      String(d.duplicated),
      String(d.unexpected),
      fmtPct(r.duplicateRate, 2),
      fmtDamage(r.damage),
      fmtBroker(r.broker),
      alertsFired(r.outcome.alerts),
      r.expectation.passed ? "pass" : "FAIL",
    ];
  });
}

export function summaryMarkdown(runs: readonly ScenarioRun[], machine: string): string {
  const lines = [
    `| ${HEAD.join(" | ")} |`,
    `| ${HEAD.map((h, i) => (i >= 2 && i <= 12 && h !== "in flight at fault" ? "---:" : "---")).join(" | ")} |`,
    ...summaryRows(runs).map((row) => `| ${row.join(" | ")} |`),
    "",
    `Machine: ${machine}`,
  ];
  const replicas = [...new Set(runs.map((r) => Number(r.outcome.facts.replicas ?? 1)))];
  if (replicas.some((n) => n > 1))
    lines.push(`Instances: ${replicas.join(" or ")} of each service and of each relay`);
  return `${lines.join("\n")}\n`;
}

/** Writes summary.md (this table) and summary.html (the renderer's table, linking each report). */
export function writeLabSummary(dir: string, runs: readonly ScenarioRun[], machine: string): string {
  writeSummary(
    dir,
    runs.map((r) => ({
      run: r.outcome.run,
      series: r.series,
      alerts: r.outcome.alerts,
      ...(r.inFlight ? { inFlight: r.inFlight } : {}),
      audit: {
        passed: r.expectation.passed,
        duplicateRate: r.duplicateRate ?? undefined,
        ...(r.damage ? { damage: r.damage } : {}),
        ...(r.broker ? { broker: r.broker } : {}),
      },
    })),
    { machine, links: runs.map((r) => path.relative(dir, r.files.html)) },
  );
  const md = summaryMarkdown(runs, machine);
  fs.writeFileSync(path.join(dir, "summary.md"), md);
  return md;
}

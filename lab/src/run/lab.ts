// Runs a list of scenarios one after the other and writes the summary table; shared by the CLI and
// the CI test, so both exercise the same code.
import path from "node:path";
import type { Stack } from "@orderflow/infra";
import { selectScenarios } from "../scenarios/index.ts";
import { type LabOptions, runScenario, type ScenarioRun } from "./run-scenario.ts";
import { writeLabSummary } from "./summary.ts";

export const faultReportsDir = (reportsDir: string) => path.join(reportsDir, "fault");

export async function runLab(
  s: Stack,
  names: string[],
  o: LabOptions & { machine: string },
): Promise<{ runs: ScenarioRun[]; markdown: string }> {
  const scenarios = selectScenarios(names);
  const runs: ScenarioRun[] = [];
  for (const sc of scenarios) {
    o.log(`=== ${sc.name} (${sc.kind}): ${sc.summary}`);
    const r = await runScenario(s, sc, o);
    for (const c of r.expectation.checks) o.log(`  ${c.ok ? "ok  " : "FAIL"} ${c.name}: ${c.detail}`);
    o.log(`  => ${r.expectation.passed ? "pass" : "FAIL"}; report ${r.files.html}`);
    runs.push(r);
  }
  const markdown = writeLabSummary(o.reportsDir, runs, o.machine);
  return { runs, markdown };
}

// Runs a list of scenarios one after the other and writes the summary table; shared by the CLI and
// the CI test, so both exercise the same code.
import path from "node:path";
import { selectScenarios } from "../scenarios/index.ts";
import type { LabTarget, TargetKind } from "../targets/target.ts";
import { type LabOptions, onTarget, runScenario, type ScenarioRun } from "./run-scenario.ts";
import { writeLabSummary } from "./summary.ts";

/** Each target's runs in a folder of their own, so each summary table holds one target's latest runs. */
export const faultReportsDir = (reportsDir: string, target: TargetKind = "local") =>
  path.join(reportsDir, target === "local" ? "fault" : `fault-${target}`);

export async function runLab(
  t: LabTarget,
  names: string[],
  o: LabOptions & { machine: string },
): Promise<{ runs: ScenarioRun[]; markdown: string }> {
  const selected = selectScenarios(names);
  const onKind = selected.filter((sc) => t.kind === "local" || !sc.localOnly);
  const skipped = selected.filter((sc) => !onKind.includes(sc));
  if (skipped.length > 0)
    o.log(
      `skipped on ${t.kind}, as they run on the local stack only (${skipped[0]?.localOnly}): ${skipped.map((sc) => sc.name).join(", ")}`,
    );
  const scenarios = onKind.filter((sc) => !sc.needs?.(t.stack));
  const unmet = onKind.filter((sc) => !scenarios.includes(sc));
  if (unmet.length > 0)
    o.log(`skipped: ${unmet.map((sc) => sc.name).join(", ")}: ${unmet[0]?.needs?.(t.stack)}`);
  const runs: ScenarioRun[] = [];
  for (const sc of scenarios) {
    o.log(`=== ${sc.name} (${sc.kind}): ${onTarget(sc, t).summary}`);
    const r = await runScenario(t, sc, o);
    for (const c of r.expectation.checks) o.log(`  ${c.ok ? "ok  " : "FAIL"} ${c.name}: ${c.detail}`);
    o.log(`  => ${r.expectation.passed ? "pass" : "FAIL"}; report ${r.files.html}`);
    runs.push(r);
  }
  const markdown = writeLabSummary(o.reportsDir, runs, o.machine);
  return { runs, markdown };
}

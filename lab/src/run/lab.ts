// Runs a list of scenarios one after the other and writes the summary table; shared by the CLI and
// the CI test, so both exercise the same code.
import path from "node:path";
import { replicasInUse } from "@orderflow/infra";
import { selectScenarios } from "../scenarios/index.ts";
import type { LabTarget, TargetKind } from "../targets/target.ts";
import { type LabOptions, onTarget, runScenario, type ScenarioRun } from "./run-scenario.ts";
import type { Scenario } from "./scenario.ts";
import { writeLabSummary } from "./summary.ts";

/** Each target's runs in a folder of their own, so each summary table holds one target's latest runs. */
/** Each target's runs apart, and the local stack's runs with replicas apart from those with one of each. */
export const faultReportsDir = (reportsDir: string, target: TargetKind = "local", replicas = 1) =>
  path.join(
    reportsDir,
    target !== "local" ? `fault-${target}` : replicas > 1 ? `fault-replicas-${replicas}` : "fault",
  );

/** Scenarios left out, grouped by why, each group's names on one line. */
function byReason(left: Scenario[], why: (sc: Scenario) => string | undefined): [string, string][] {
  const groups = new Map<string, string[]>();
  for (const sc of left) {
    const reason = why(sc) ?? "";
    groups.set(reason, [...(groups.get(reason) ?? []), sc.name]);
  }
  return [...groups].map(([reason, names]) => [reason, names.join(", ")]);
}

export async function runLab(
  t: LabTarget,
  names: string[],
  o: LabOptions & { machine: string },
): Promise<{ runs: ScenarioRun[]; markdown: string }> {
  const selected = selectScenarios(names);
  const onKind = selected.filter((sc) => t.kind === "local" || !sc.localOnly);
  const skipped = selected.filter((sc) => !onKind.includes(sc));
  for (const [why, names] of byReason(skipped, (sc) => sc.localOnly))
    o.log(`skipped on ${t.kind}, as they run on the local stack only (${why}): ${names}`);
  // As many instances as the run will have: asked for, or what runs now.
  const run = {
    replicas: o.replicas ?? (t.kind === "local" ? replicasInUse(t.stack) : 1),
    target: t.kind,
  };
  const scenarios = onKind.filter((sc) => !sc.needs?.(t.stack, run));
  for (const [why, names] of byReason(
    onKind.filter((sc) => !scenarios.includes(sc)),
    (sc) => sc.needs?.(t.stack, run),
  ))
    o.log(`skipped: ${names}: ${why}`);
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

// `pnpm fault <scenario>` / `pnpm fault all` [--duration 20s] [--long] [--rate N]: runs scenarios
// against the local stack, writes reports/fault/<scenario>/<run>.json|.html, and exits 1 when a
// scenario's verdict is not the one it expects.
import { openStack, restartAppsWithEnv } from "@orderflow/infra";
import { parseDuration } from "../duration.ts";
import { readLoadTestsEnv } from "../env.ts";
import { describeMachine } from "../machine.ts";
import { faultReportsDir, runLab } from "./lab.ts";
import { latestRuns } from "./latest.ts";
import { SCENARIOS } from "./scenarios/index.ts";
import { writeLabSummary } from "./summary.ts";

function parseArgs(argv: string[]) {
  const names: string[] = [];
  let durationMs: number | undefined;
  let long = false;
  let rate: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--long") long = true;
    else if (a === "--duration") durationMs = parseDuration(argv[++i] ?? "", "--duration");
    else if (a === "--rate") rate = Number(argv[++i]);
    else if (a === "--") continue;
    else names.push(a);
  }
  return { names, durationMs: durationMs ?? (long ? 180_000 : 20_000), long, rate };
}

const args = parseArgs(process.argv.slice(2));
if (args.names.length === 0) {
  process.stdout.write(
    `usage: pnpm fault <scenario...|all> [--duration 20s] [--long] [--rate N]\n       pnpm fault summary   (table of the latest run of each scenario)\nscenarios: ${SCENARIOS.map((s) => s.name).join(", ")}\n`,
  );
  process.exit(2);
}
const env = readLoadTestsEnv();
if (args.names[0] === "summary") {
  const dir = faultReportsDir(env.reportsDir);
  const runs = latestRuns(dir, SCENARIOS);
  process.stdout.write(writeLabSummary(dir, runs, runs[0]?.outcome.run.machine ?? describeMachine()));
  process.exit(runs.every((r) => r.expectation.passed) ? 0 : 1);
}
const stack = openStack();
const machine = describeMachine();
try {
  const { runs, markdown } = await runLab(stack, args.names, {
    durationMs: args.durationMs,
    long: args.long,
    ...(args.rate ? { rate: args.rate } : {}),
    reportsDir: faultReportsDir(env.reportsDir),
    log: (line) => process.stdout.write(`${line}\n`),
    machine,
  });
  process.stdout.write(`\n${markdown}\n`);
  for (const r of runs)
    for (const c of r.expectation.checks.filter((x) => !x.ok))
      process.stdout.write(`${r.scenario.name}: FAILED ${c.name}: ${c.detail}\n`);
  process.exitCode = runs.every((r) => r.expectation.passed) ? 0 : 1;
} finally {
  // Leave the stack as `stack up` made it: no lab switch, no proxy.
  await restartAppsWithEnv(stack, {});
}

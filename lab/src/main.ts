// `pnpm fault <scenario...>` / `pnpm fault all` / `pnpm fault pitfalls` [--duration 20s] [--long] [--rate N]
// [--replicas N] [--target local|compose]: runs scenarios against the local stack or the compose stack, writes
// reports/fault[-compose]/<scenario>/<run>.json|.html, and exits 1 when a scenario's verdict is not the
// one it expects.
import { parseCli } from "@orderflow/config";
import { MAX_REPLICAS, openStack, replicasInUse } from "@orderflow/infra";
import { parseDuration } from "@orderflow/load/duration.ts";
import { readLoadEnv } from "@orderflow/load/env.ts";
import { describeMachine } from "@orderflow/load/machine.ts";
import { DEFAULT_RATE } from "@orderflow/load/scenario-definitions.ts";
import { faultReportsDir, runLab } from "./run/lab.ts";
import { latestRuns } from "./run/latest.ts";
import { writeLabSummary } from "./run/summary.ts";
import { SCENARIO_GROUPS, SCENARIOS } from "./scenarios/index.ts";
import { composeTarget } from "./targets/compose.ts";
import { localTarget } from "./targets/local.ts";
import { TARGET_KINDS, type TargetKind } from "./targets/target.ts";

const USAGE = `usage: pnpm fault <scenario...|all> [--duration 20s] [--long] [--rate N] [--replicas N]
                   [--target local|compose]
       pnpm fault pitfalls  (every pitfall, each followed by its -protected pair)
       pnpm fault summary [--target compose | --replicas N]  (table of the latest run of each scenario)
  --duration D   load per scenario, a k6 duration like 20s or 1m30s (default 20s, 180s with --long)
  --long         the long version: 180 s of load unless --duration says otherwise
  --rate N       orders per second offered (default: each scenario's own, ${DEFAULT_RATE}/s)
  --replicas N   run N (1..${MAX_REPLICAS}) of each service and relay, the load spread over the order
                 instances; a fault aimed at an app hits its first instance (default: as many as run)
  --target T     local (default): the stack of \`pnpm stack up\`; compose: the containers of
                 \`pnpm compose up\`, faults through its control service (the pitfalls are local only)
scenarios: ${SCENARIOS.map((s) => s.name).join(", ")}`;

function readArgs(argv: string[]) {
  const { values, positionals, fail, check } = parseCli(
    {
      usage: USAGE,
      options: {
        duration: { type: "string" },
        long: { type: "boolean" },
        rate: { type: "string" },
        replicas: { type: "string" },
        target: { type: "string" },
      },
      positionals: { min: 1, max: SCENARIOS.length + 1 },
    },
    argv,
  );
  const known = new Set([...Object.keys(SCENARIO_GROUPS), "summary", ...SCENARIOS.map((s) => s.name)]);
  const unknown = positionals.filter((n) => !known.has(n));
  if (unknown.length > 0) fail(`unknown scenario ${unknown.map((n) => `"${n}"`).join(", ")}`);
  if (positionals.includes("summary") && positionals.length > 1) fail("summary takes no scenario");
  const rate = values.rate === undefined ? undefined : Number(values.rate);
  if (rate !== undefined && !(Number.isFinite(rate) && rate > 0))
    fail(`--rate must be a number of orders per second above 0, got "${values.rate}"`);
  const replicas = values.replicas === undefined ? undefined : Number(values.replicas);
  if (replicas !== undefined && !(Number.isInteger(replicas) && replicas >= 1 && replicas <= MAX_REPLICAS))
    fail(`--replicas must be a whole number from 1 to ${MAX_REPLICAS}, got "${values.replicas}"`);
  const target = (values.target ?? "local") as TargetKind;
  if (!TARGET_KINDS.includes(target))
    fail(`--target must be one of ${TARGET_KINDS.join(", ")}, got "${values.target}"`);
  const long = values.long ?? false;
  const durationMs =
    values.duration === undefined
      ? long
        ? 180_000
        : 20_000
      : check(() => parseDuration(values.duration as string, "--duration"));
  if (replicas !== undefined && target === "compose")
    fail("--replicas scales the local stack; scale compose with `docker compose up --scale order=N`");
  return { names: positionals, durationMs, long, rate, replicas, target };
}

const args = readArgs(process.argv.slice(2));
const env = readLoadEnv();
if (args.names[0] === "summary") {
  const dir = faultReportsDir(env.reportsDir, args.target, args.replicas);
  const runs = latestRuns(dir, SCENARIOS);
  process.stdout.write(writeLabSummary(dir, runs, runs[0]?.outcome.run.machine ?? describeMachine()));
  process.exit(runs.every((r) => r.expectation.passed) ? 0 : 1);
}
const log = (line: string) => process.stdout.write(`${line}\n`);
const target = args.target === "compose" ? await composeTarget(log) : localTarget(openStack());
// Where the runs go: by the number of instances they run with (given, or what runs now).
const replicas = args.replicas ?? (target.kind === "local" ? replicasInUse(target.stack) : 1);
const machine = describeMachine();
try {
  const { runs, markdown } = await runLab(target, args.names, {
    durationMs: args.durationMs,
    long: args.long,
    ...(args.rate ? { rate: args.rate } : {}),
    ...(args.replicas ? { replicas: args.replicas } : {}),
    reportsDir: faultReportsDir(env.reportsDir, args.target, replicas),
    log,
    machine,
  });
  process.stdout.write(`\n${markdown}\n`);
  for (const r of runs)
    for (const c of r.expectation.checks.filter((x) => !x.ok))
      process.stdout.write(`${r.scenario.name}: FAILED ${c.name}: ${c.detail}\n`);
  if (runs.length === 0) log("no scenario could run on this stack (see the lines above)");
  process.exitCode = runs.length > 0 && runs.every((r) => r.expectation.passed) ? 0 : 1;
} finally {
  // Leave the stack as `stack up` made it: no lab switch, no proxy (and as many instances as ran).
  await target.restartAppsWith({}, args.replicas);
}

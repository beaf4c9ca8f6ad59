// `pnpm bench [--quick] [--only=relay,claim,...]`: runs each section against the local stack
// (`pnpm stack up` first), writes reports/bench/bench.json and bench.md, cleans up its scratch
// databases and queues, and exits 1 if the stack is not up or a section failed.
import os from "node:os";
import { parseCli } from "@orderflow/config";
import { MAX_REPLICAS, openStack, readInfraEnv } from "@orderflow/infra";
import { batchingSection } from "./batching-bench.ts";
import { ceilingsSection } from "./ceilings.ts";
import { claimSection } from "./claim-bench.ts";
import { readBenchEnv } from "./env.ts";
import { describeMachine } from "./machine.ts";
import { memorySection } from "./memory-bench.ts";
import { orderingSection } from "./ordering-bench.ts";
import { peersSection } from "./peers-bench.ts";
import { checkStack } from "./preflight.ts";
import { prismaSection } from "./prisma-vs-raw.ts";
import { relaySection } from "./relay-bench.ts";
import { type Report, writeReport } from "./report.ts";
import { sagaSection } from "./saga-bench.ts";
import { dropLeftoverScratchDbs } from "./scratch-db.ts";
import type { Section, SectionResult } from "./section.ts";

const SECTIONS: Section[] = [
  relaySection,
  claimSection,
  prismaSection,
  ceilingsSection,
  peersSection,
  sagaSection,
  memorySection,
  batchingSection,
  orderingSection,
];

const USAGE = `usage: pnpm bench [--quick] [--only=SECTION[,SECTION...]] [--memory-rate=N] [--replicas=N]
  --quick         fewer rows, shorter runs, fewer repeats (or BENCH_QUICK=1)
  --only          run only these sections: ${SECTIONS.map((s) => s.name).join(", ")}
  --memory-rate   orders/s of the memory section when the saga section does not run before it
                  (else the saga's sustained rate; default 100)
  --replicas      the saga section also runs its defaults with N (2..${MAX_REPLICAS}) of each service and
                  relay, the load spread over the order instances, beside the run with one
  writes BENCH_OUT_DIR (default reports/bench)/bench.json and bench.md; needs \`pnpm stack up\``;

function readArgs(argv: string[]): {
  quick: boolean;
  only: string[];
  memoryRate: number | undefined;
  replicas: number | undefined;
} {
  const { values, fail } = parseCli(
    {
      usage: USAGE,
      options: {
        quick: { type: "boolean" },
        only: { type: "string", multiple: true },
        "memory-rate": { type: "string" },
        replicas: { type: "string" },
      },
    },
    argv,
  );
  const only = (values.only ?? []).flatMap((o) => o.split(",")).filter(Boolean);
  const unknown = only.filter((n) => !SECTIONS.some((s) => s.name === n));
  if (unknown.length > 0) fail(`unknown section ${unknown.map((n) => `"${n}"`).join(", ")}`);
  const raw = values["memory-rate"];
  const memoryRate = raw === undefined ? undefined : Number(raw);
  if (memoryRate !== undefined && !(Number.isFinite(memoryRate) && memoryRate > 0 && memoryRate <= 1_000))
    fail(`--memory-rate must be a number of orders/s in (0, 1000], got "${raw}"`);
  const replicas = values.replicas === undefined ? undefined : Number(values.replicas);
  if (replicas !== undefined && !(Number.isInteger(replicas) && replicas >= 2 && replicas <= MAX_REPLICAS))
    fail(`--replicas must be a whole number from 2 to ${MAX_REPLICAS}, got "${values.replicas}"`);
  return { quick: values.quick ?? false, only, memoryRate, replicas };
}

/** `{ [name]: summary }` when that section ran and has one: bench.json's top-level objects. */
const summary = (
  earlier: Map<string, SectionResult>,
  name: "relay" | "ceilings" | "saga" | "memory" | "peers" | "ordering",
) => {
  const s = earlier.get(name)?.summary;
  return s ? { [name]: s } : {};
};

async function mainBench(): Promise<number> {
  const env = readBenchEnv(readArgs(process.argv.slice(2)));
  const started = performance.now();
  const loadAtStart = os.loadavg()[0] ?? Number.NaN;
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const stack = openStack(readInfraEnv(), false);
  const chosen = SECTIONS.filter((s) => env.only.length === 0 || env.only.includes(s.name));
  const problems = await checkStack(
    stack,
    chosen.some((s) => s.needsServices === true),
  );
  if (problems.length > 0) {
    process.stderr.write(
      `bench: the local stack is not up (start it with \`pnpm stack up\`, same ORDERFLOW_PORT_OFFSET):\n` +
        problems.map((p) => `  - ${p}\n`).join(""),
    );
    return 1;
  }
  const leftovers = await dropLeftoverScratchDbs(stack);
  if (leftovers.length > 0) log(`dropped scratch databases left by an earlier run: ${leftovers.join(", ")}`);

  const earlier = new Map<string, SectionResult>();
  const failures: Record<string, string> = {};
  for (const s of chosen) {
    const t = performance.now();
    log(`== ${s.name}`);
    try {
      earlier.set(
        s.name,
        await s.run({
          stack,
          quick: env.quick,
          log,
          earlier,
          memoryRate: env.memoryRate,
          replicas: env.replicas,
        }),
      );
      log(`   ${s.name} done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    } catch (e) {
      failures[s.name] = (e as Error).stack ?? String(e);
      log(`   ${s.name} FAILED: ${(e as Error).message}`);
    }
  }
  const report: Report = {
    machine: describeMachine(loadAtStart),
    command: `pnpm bench${env.quick ? " --quick" : ""}${env.only.length ? ` --only=${env.only.join(",")}` : ""}${env.memoryRate ? ` --memory-rate=${env.memoryRate}` : ""}${env.replicas ? ` --replicas=${env.replicas}` : ""}`,
    quick: env.quick,
    durationSeconds: (performance.now() - started) / 1000,
    ...summary(earlier, "relay"),
    ...summary(earlier, "ceilings"),
    ...summary(earlier, "saga"),
    ...summary(earlier, "memory"),
    ...summary(earlier, "peers"),
    ...summary(earlier, "ordering"),
    sections: Object.fromEntries(earlier),
    failures: Object.fromEntries(Object.entries(failures).map(([k, v]) => [k, v.split("\n")[0] ?? v])),
  };
  const files = writeReport(env.outDir, report);
  log(`wrote ${files.json} and ${files.md} in ${Math.round(report.durationSeconds)} s`);
  return Object.keys(failures).length > 0 ? 1 : 0;
}

mainBench().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);

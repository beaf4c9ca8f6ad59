// Memory under steady load: orders at the saga's sustained rate from this run (else
// --memory-rate, else 100/s) for 5 minutes (quick: 60 s), each service's and relay's RSS sampled every
// 5 s; per process the RSS at the end and its growth over the run's second half, with a verdict.
import { adminUrl } from "@orderflow/infra";
import pg from "pg";
import {
  GROWTH_TOLERANCE,
  LAST_WINDOW_S,
  type MemoryGrowth,
  memoryGrowth,
  type RssSample,
  TOLERANCE,
} from "./memory-growth.ts";
import { createOrderClient } from "./order-client.ts";
import { rssMb, startTicks } from "./rss.ts";
import { GRACE_MS, runStep } from "./saga-step.ts";
import {
  fmt,
  type Section,
  type SectionContext,
  type SectionResult,
  sleep,
  type TableRow,
} from "./section.ts";
import { stackProcesses } from "./stack-processes.ts";
import { seedStock } from "./stock.ts";

export const DEFAULT_MEMORY_RATE = 100;
const SAMPLE_EVERY_S = 5;

/** The rate of the run and where it came from: this run's saga section first, then the option. */
export function memoryRate(
  sagaSummary: Record<string, unknown> | undefined,
  option: number | undefined,
): { rate: number; from: "saga section" | "--memory-rate" | "default" } {
  const sustained = sagaSummary?.sustainedOrdersPerSecond;
  if (typeof sustained === "number" && sustained > 0) return { rate: sustained, from: "saga section" };
  if (option !== undefined && option > 0) return { rate: option, from: "--memory-rate" };
  return { rate: DEFAULT_MEMORY_RATE, from: "default" };
}

/** Samples every app's RSS every SAMPLE_EVERY_S until `seconds` (bounded: seconds / interval + 1 rounds). */
async function sampleRss(
  apps: Record<string, number>,
  seconds: number,
): Promise<Record<string, RssSample[]>> {
  const started = Object.fromEntries(Object.entries(apps).map(([n, pid]) => [n, startTicks(pid)]));
  const out: Record<string, RssSample[]> = Object.fromEntries(Object.keys(apps).map((n) => [n, []]));
  const t0 = performance.now();
  const rounds = Math.floor(seconds / SAMPLE_EVERY_S) + 1;
  for (let k = 0; k < rounds; k++) {
    await sleep(t0 + k * SAMPLE_EVERY_S * 1000 - performance.now());
    const t = (performance.now() - t0) / 1000;
    for (const [name, pid] of Object.entries(apps)) out[name]?.push({ t, mb: rssMb(pid, started[name]) });
  }
  return out;
}

function rows(
  rate: number,
  from: string,
  seconds: number,
  load: Awaited<ReturnType<typeof runStep>>,
  growth: Record<string, MemoryGrowth>,
): TableRow[] {
  const out: TableRow[] = [
    {
      measure: `memory soak: orders at ${fmt(rate)}/s (${from}) for ${seconds} s, RSS of every service and relay every ${SAMPLE_EVERY_S} s`,
      result: load.keptUp ? "kept up" : "fell behind",
      spread: `${load.final}/${load.sent} final, ${load.dropped} dropped, ${load.httpErrors} failed; final p99 ${fmt(load.finalMs.p99)} ms`,
      kind: "measured",
      note: `growth = max of the last ${LAST_WINDOW_S} s - first sample of the second half, within max(${GROWTH_TOLERANCE.floorMb} MB, ${GROWTH_TOLERANCE.fraction * 100}% of RSS); the second half's least-squares slope projected over it within max(${TOLERANCE.floorMb} MB, ${TOLERANCE.fraction * 100}% of RSS)`,
    },
  ];
  for (const [name, g] of Object.entries(growth))
    out.push({
      measure: `RSS at the end: ${name}`,
      result: `${fmt(g.endMb)} MB, ${g.verdict}`,
      spread: `second half ${g.growthMb >= 0 ? "+" : ""}${fmt(g.growthMb, 1)} MB (${fmt(g.secondHalfStartMb)} -> max ${fmt(g.lastWindowMaxMb)}), slope ${fmt(g.slopeMbPerMin, 2)} MB/min; start ${fmt(g.startMb)}, max ${fmt(g.maxMb)} MB`,
      kind: "measured",
      note: `projected ${fmt(g.projectedMb, 1)} MB (within ${fmt(g.toleranceMb)}); growth within ${fmt(g.growthToleranceMb)} MB`,
    });
  return out;
}

export const memorySection: Section = {
  name: "memory",
  needsServices: true,
  async run(ctx: SectionContext): Promise<SectionResult> {
    const seconds = ctx.quick ? 60 : 300;
    const { rate, from } = memoryRate(ctx.earlier.get("saga")?.summary, ctx.memoryRate);
    const { servicePorts } = ctx.stack.layout;
    await seedStock(`http://127.0.0.1:${servicePorts.inventory}`);
    const { apps } = await stackProcesses(ctx.stack);
    if (Object.keys(apps).length === 0) throw new Error("no service or relay PID in `stack status`");
    ctx.log(`  ${rate} orders/s (${from}) for ${seconds} s; RSS of ${Object.keys(apps).join(", ")}`);
    const orderDb = new pg.Pool({ connectionString: adminUrl(ctx.stack.pg, "orderflow_order"), max: 2 });
    const client = createOrderClient(`http://127.0.0.1:${servicePorts.order}`);
    try {
      const [load, samples] = await Promise.all([
        runStep(client, orderDb, { rate, seconds, graceMs: GRACE_MS }),
        sampleRss(apps, seconds),
      ]);
      ctx.log(
        `  load: ${load.final}/${load.sent} final, ${load.dropped} dropped, ${load.httpErrors} failed -> ${load.keptUp ? "kept up" : "fell behind"}`,
      );
      const growth = Object.fromEntries(
        Object.entries(samples).map(([n, s]) => [n, memoryGrowth(s, seconds)]),
      );
      for (const [n, g] of Object.entries(growth))
        ctx.log(
          `  ${n}: ${fmt(g.startMb)} -> ${fmt(g.endMb)} MB, second half ${fmt(g.growthMb, 1)} MB, ${fmt(g.slopeMbPerMin, 2)} MB/min: ${g.verdict}`,
        );
      const verdicts = Object.values(growth).map((g) => g.verdict);
      return {
        title: "Memory under steady load",
        rows: rows(rate, from, seconds, load, growth),
        data: { load, samples, growth },
        summary: {
          ratePerSecond: rate,
          rateFrom: from,
          seconds,
          sampleIntervalSeconds: SAMPLE_EVERY_S,
          keptUp: load.keptUp,
          orders: { sent: load.sent, final: load.final, dropped: load.dropped, failed: load.httpErrors },
          tolerance: { slope: TOLERANCE, growth: GROWTH_TOLERANCE, lastWindowSeconds: LAST_WINDOW_S },
          flat: verdicts.every((v) => v === "flat"),
          processes: Object.fromEntries(Object.entries(growth).map(([n, g]) => [n, { pid: apps[n], ...g }])),
        },
      };
    } finally {
      client.close();
      await orderDb.end().catch(() => {});
    }
  },
};

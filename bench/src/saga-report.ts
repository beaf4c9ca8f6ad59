// What the saga section reports: the two configurations side by side (defaults / one message per
// transaction) in the table, and the top-level `saga` object of bench.json. Pure: numbers in, rows out.
import type { AppVariant } from "@orderflow/infra";
import { ladderText } from "./ladder.ts";
import type { StepResult } from "./saga-step.ts";
import { fmt, type TableRow } from "./section.ts";
import { type Latency, ratio } from "./stats.ts";
import type { StepCpu } from "./step-cpu.ts";

// Derived from the code (services/*/src/steps/*.ts, orders/create-order.ts, infra topology), happy path:
//  messages: order.created -> inventory, inventory.reserved -> order and points, points.granted ->
//            order: 3 publishes with confirms, 4 deliveries with acks (a quorum queue's Raft log each:
//            the broker's bound counts deliveries);
//  business transactions: POST /orders, inventory reserve, order confirm, points grant, order records
//            points: 5 (each consumer one also holds the inbox row; with consumer batches, a consumer's
//            transaction holds up to CONSUMER_BATCH_SIZE of them);
//  relay bookkeeping: a lease UPDATE and a mark-sent UPDATE per published message: 6 single statements
//            (batched across orders under load).
export const PER_ORDER = {
  deliveries: 4,
  publishes: 3,
  businessTransactions: 5,
  relayStatements: 6,
} as const;

/** One of the runs a HalfRun pools. */
export interface HalfRepeatResult {
  final: number;
  finalMs: Latency;
  stackCpuMsPerOrder: number;
  autovacuums: number;
}

/** The runs at half the sustained rate, pooled: every figure below is over all of them. */
export interface HalfRun {
  rate: number;
  /** Of each run. */
  seconds: number;
  /** The VACUUM (ANALYZE) and CHECKPOINT before each run (settle.ts), in seconds, all runs. */
  settleSeconds: number;
  /** Autovacuum and autoanalyze runs in the three service databases while the runs were measured. */
  autovacuums: number;
  /** The runs pooled: counts summed, latencies over every order of every run. */
  step: StepResult;
  /** Each run on its own, in order. */
  repeats: HalfRepeatResult[];
  /** The system under test, group -> CPU ms per final order. */
  cpuMsPerOrder: Record<string, number>;
  /** Their sum: `cpuMsPerOrder` of bench.json's `saga`. */
  stackCpuMsPerOrder: number;
  /** Monitoring, control, supervisor and this process: reported, not in the sum. */
  besideCpuMsPerOrder: Record<string, number>;
  cpuSeconds: Record<string, number>;
  /** The system under test, group -> context switches (every thread) per final order. */
  switchesPerOrder: Record<string, number>;
  /** The system under test, group -> ms its threads were ready to run with no core free, per final order. */
  runQueueWaitMsPerOrder: Record<string, number>;
  hops: { hop: string; ms: Latency }[];
}

export interface ConfigResult {
  key: "baseline" | "defaults" | "replicas";
  label: string;
  variant: AppVariant;
  /** Instances of each service and relay it ran with (`pnpm bench --replicas=N` adds a run with N). */
  replicas: number;
  /** The ladder tried (up to its first step that fell behind). */
  rates: readonly number[];
  stepSeconds: number;
  /** Each step with the CPU it cost (step-cpu.ts). */
  steps: (StepResult & { cpu: StepCpu })[];
  sustained: number;
  keptUpAtEveryStep: boolean;
  /** null when no step kept up. */
  half: HalfRun | null;
}

export const LOAD_GENERATOR = "bench (load generator)";

const halfOf = (c: ConfigResult) => ({
  halfRate: c.half?.rate ?? Number.NaN,
  cpuMsPerOrder: c.half?.stackCpuMsPerOrder ?? Number.NaN,
  finalLatencyP50Ms: c.half?.step.finalMs.p50 ?? Number.NaN,
  finalLatencyP99Ms: c.half?.step.finalMs.p99 ?? Number.NaN,
  cpuMsPerOrderByProcess: c.half?.cpuMsPerOrder ?? {},
  notInCpuMsPerOrder: c.half?.besideCpuMsPerOrder ?? {},
  contextSwitchesPerOrderByProcess: c.half?.switchesPerOrder ?? {},
  runQueueWaitMsPerOrderByProcess: c.half?.runQueueWaitMsPerOrder ?? {},
  halfRateRuns: (c.half?.repeats ?? []).map((r) => ({
    final: r.final,
    finalLatencyP50Ms: r.finalMs.p50,
    finalLatencyP99Ms: r.finalMs.p99,
    cpuMsPerOrder: r.stackCpuMsPerOrder,
    autovacuums: r.autovacuums,
  })),
  halfRateSettleSeconds: c.half?.settleSeconds ?? Number.NaN,
  halfRateAutovacuums: c.half?.autovacuums ?? Number.NaN,
  sustainedIsLowerBound: c.keptUpAtEveryStep,
  ladder: c.steps.map((s) => ({
    rate: s.rate,
    keptUp: s.keptUp,
    stackCpuMsPerOrder: s.cpu.stackMsPerOrder,
    stackCores: s.cpu.stackCores,
    machineBusy: s.cpu.machineBusy,
    stackSwitchesPerOrder: s.cpu.stackSwitchesPerOrder,
  })),
});

/**
 * bench.json's top-level `saga`: the four headline figures first (sustained rate, CPU per order, p99,
 * ratio; NaN, i.e. null, when not measured).
 */
export function sagaSummary(baseline: ConfigResult, defaults: ConfigResult, replicas?: ConfigResult) {
  const { cpuMsPerOrder, finalLatencyP99Ms, ...d } = halfOf(defaults);
  return {
    sustainedOrdersPerSecond: defaults.sustained,
    baselineSustainedOrdersPerSecond: baseline.sustained,
    cpuMsPerOrder,
    finalLatencyP99Ms,
    sustainedRatio: ratio(defaults.sustained, baseline.sustained),
    ...d,
    baseline: { variant: baseline.variant, ...halfOf(baseline) },
    // With --replicas=N: the defaults again with N of each service and relay, and N against 1.
    ...(replicas
      ? {
          replicas: {
            count: replicas.replicas,
            sustainedOrdersPerSecond: replicas.sustained,
            sustainedOverOne: ratio(replicas.sustained, defaults.sustained),
            ...halfOf(replicas),
          },
        }
      : {}),
  };
}

/** The rows of `pnpm bench --replicas=N`: the defaults with N instances of everything against one. */
export function replicaRows(defaults: ConfigResult, replicas: ConfigResult): TableRow[] {
  const n = replicas.replicas;
  const cpu = (c: ConfigResult) => c.half?.stackCpuMsPerOrder ?? Number.NaN;
  const p = (c: ConfigResult, q: "p50" | "p99") => c.half?.step.finalMs[q] ?? Number.NaN;
  return [
    {
      measure: `saga sustained orders/s, defaults with ${n} of each service and relay / with one (same ladder)`,
      result: `${fmt(replicas.sustained)} / ${fmt(defaults.sustained)} orders/s`,
      spread: `${n} of each ${ladderText(replicas.steps)}`,
      kind: "measured",
      note: `${times(ratio(replicas.sustained, defaults.sustained))}; the load spread over the order instances${replicas.keptUpAtEveryStep ? `; ${n} of each kept up at every step: a lower bound` : ""}`,
    },
    {
      measure: `stack CPU per order at half the sustained rate, ${n} of each / one`,
      result: `${fmt(cpu(replicas), 1)} / ${fmt(cpu(defaults), 1)} ms`,
      spread: `written -> final p50 ${fmt(p(replicas, "p50"))} / ${fmt(p(defaults, "p50"))} ms, p99 ${fmt(p(replicas, "p99"))} / ${fmt(p(defaults, "p99"))} ms`,
      kind: "measured",
      note: `${times(ratio(cpu(replicas), cpu(defaults)))} the CPU; every instance's process counted`,
    },
  ];
}

type Pair = [defaults: number, baseline: number];
const pair = (p: Pair, digits = 0, unit = "") => `${fmt(p[0], digits)} / ${fmt(p[1], digits)}${unit}`;
/** "3.8x", or "n/a" when either side is missing. */
const times = (r: number) => (Number.isFinite(r) ? `${fmt(r, 1)}x` : "n/a");

/** The table: each row holds "defaults / one message per transaction". */
export function sagaRows(
  baseline: ConfigResult,
  defaults: ConfigResult,
  halfSeconds: number,
  machine: Machine,
): TableRow[] {
  const both = (f: (c: ConfigResult) => number): Pair => [f(defaults), f(baseline)];
  const sustained = both((c) => c.sustained);
  const rates = both((c) => c.half?.rate ?? Number.NaN);
  const at = `at half the sustained rate (${pair(rates, 0, " orders/s")})`;
  const rows: TableRow[] = [
    {
      measure:
        `saga sustained orders/s, defaults / one message per transaction (CONSUMER_BATCH_SIZE=1); ladder ` +
        `${defaults.rates.join(", ")}/s, ${defaults.stepSeconds} s a step; ` +
        "kept up = every order final within 5 s of being written, none dropped or failed",
      result: pair(sustained, 0, " orders/s"),
      spread: `defaults ${ladderText(defaults.steps)}; 1 per tx ${ladderText(baseline.steps)}`,
      kind: "measured",
      note: [defaults, baseline]
        .flatMap((c) => {
          const name = c.key === "defaults" ? "defaults" : "1 per tx";
          if (c.keptUpAtEveryStep) return [`${name} kept up at every step: a lower bound`];
          return c.sustained === 0 ? [`${name} fell behind at the lowest step`] : [];
        })
        .join("; "),
    },
    {
      measure: "saga sustained, defaults / one message per transaction",
      result: times(ratio(sustained[0], sustained[1])),
      spread: "",
      kind: "derived",
      note: "both configurations in the same run, the apps restarted between them",
    },
  ];
  for (const c of [defaults, baseline]) {
    const h = c.half;
    const runs = h?.repeats ?? [];
    rows.push({
      measure: `order written -> final state, ${c.label}, at ${fmt(h?.rate ?? Number.NaN)} orders/s, ${runs.length} runs of ${halfSeconds} s pooled: p50 / p99`,
      result: `${fmt(h?.step.finalMs.p50 ?? Number.NaN)} ms / ${fmt(h?.step.finalMs.p99 ?? Number.NaN)} ms`,
      spread: h
        ? `p90 ${fmt(h.step.finalMs.p90)}, max ${fmt(h.step.finalMs.max)} ms, n=${h.step.final}; POST p99 ${fmt(h.step.httpMs.p99)} ms; ` +
          `each run p50 / p99: ${runs.map((r) => `${fmt(r.finalMs.p50)} / ${fmt(r.finalMs.p99)}`).join(", ")} ms`
        : "no step kept up",
      kind: "measured",
      note: "each run after its own VACUUM (ANALYZE) and CHECKPOINT; the CPU and hop figures at half rate pool the runs too",
    });
  }
  const stackCpu = both((c) => c.half?.stackCpuMsPerOrder ?? Number.NaN);
  rows.push({
    measure: `CPU per order of the stack (services, relays, PostgreSQL, RabbitMQ, Redis) ${at}, defaults / 1 per tx`,
    result: pair(stackCpu, 1, " ms"),
    spread: `1 per tx / defaults ${times(ratio(stackCpu[1], stackCpu[0]))}`,
    kind: "measured",
    note: "/proc utime+stime of each process tree during the half-rate run / final orders",
  });
  rows.push(...cpuRows(baseline, defaults, stackCpu));
  rows.push(switchesRow(baseline, defaults, at));
  rows.push(runQueueRow(baseline, defaults, at));
  rows.push(...[defaults, baseline].map(saturationRow));
  rows.push(...boundRows(machine, sustained, stackCpu));
  const hops = defaults.half?.hops ?? baseline.half?.hops ?? [];
  hops.forEach((h, i) => {
    const hop = both((c) => c.half?.hops[i]?.ms.p50 ?? Number.NaN);
    const p99 = both((c) => c.half?.hops[i]?.ms.p99 ?? Number.NaN);
    rows.push({
      measure: `latency ${at}, hop: ${h.hop}, defaults / 1 per tx`,
      result: `p50 ${pair(hop, 0, " ms")}`,
      spread: `p99 ${pair(p99, 0, " ms")}, n=${fmt(defaults.half?.hops[i]?.ms.n ?? Number.NaN)} / ${fmt(baseline.half?.hops[i]?.ms.n ?? Number.NaN)}`,
      kind: "measured",
      note:
        i === 1
          ? "delivery hops can be ~0 or negative: the consumer may start before the relay records the confirm"
          : "",
    });
  });
  return rows;
}

/** A machine this busy has no core free for a woken process: every hop queues. */
export const SATURATED = 0.9;

/**
 * Where the machine saturates on the ladder: past that step the stack keeps up only because each
 * transaction, publish and ack is shared by more orders (its CPU per order falls while its cores stay
 * level), and the half-rate latency is the latency of a saturated machine.
 */
function saturationRow(c: ConfigResult): TableRow {
  const first = c.steps.find((s) => s.cpu.machineBusy >= SATURATED);
  return {
    measure: `the machine ${fmt(SATURATED * 100)}% busy or more from the ladder step, ${c.label}`,
    result: first ? `${first.rate} orders/s` : "never",
    spread: c.steps
      .map(
        (s) =>
          `${s.rate}/s: ${fmt(s.cpu.stackMsPerOrder, 1)} ms/order, ${fmt(s.cpu.stackCores, 2)} cores, ${fmt(s.cpu.machineBusy * 100)}%, ${fmt(s.cpu.stackSwitchesPerOrder)} switches/order`,
      )
      .join("; "),
    kind: "measured",
    note: "each step: the stack's CPU per final order, the cores it used, the machine's busy share (/proc/stat), the context switches of every thread of the stack per final order, from its first request until its orders are final",
  };
}

const sumOf = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/** "rabbitmq 60, postgres 30": a per-process figure, the largest first. */
const busiestFirst = (r: Record<string, number>, digits = 0) =>
  Object.entries(r)
    .sort(([, a], [, b]) => b - a)
    .map(([k, v]) => `${k} ${fmt(v, digits)}`)
    .join(", ");

/**
 * How many times an order puts a thread of the stack to sleep and wakes it (or preempts it): below
 * saturation each message costs its own wake-ups in half a dozen processes, which batches share.
 */
function switchesRow(baseline: ConfigResult, defaults: ConfigResult, at: string): TableRow {
  const total = (c: ConfigResult) => (c.half ? sumOf(c.half.switchesPerOrder) : Number.NaN);
  return {
    measure: `context switches per order of the stack's threads ${at}, defaults / 1 per tx`,
    result: pair([total(defaults), total(baseline)]),
    spread: `defaults: ${busiestFirst(defaults.half?.switchesPerOrder ?? {})}`,
    kind: "measured",
    note: "voluntary + involuntary, /proc/PID/task/*/status of every process tree under test, during the half-rate run / final orders",
  };
}

/**
 * How long the stack's threads were ready to run with no core free, per order: on a saturated machine
 * this, not the work, is what an order's latency is made of (each of its hops wakes a few threads).
 */
function runQueueRow(baseline: ConfigResult, defaults: ConfigResult, at: string): TableRow {
  const total = (c: ConfigResult) => (c.half ? sumOf(c.half.runQueueWaitMsPerOrder) : Number.NaN);
  const cpu: Pair = [defaults, baseline].map((c) => c.half?.stackCpuMsPerOrder ?? Number.NaN) as Pair;
  return {
    measure: `run-queue wait per order of the stack's threads ${at} (ready to run, no core free), defaults / 1 per tx`,
    result: pair([total(defaults), total(baseline)], 1, " ms"),
    spread:
      `defaults: ${busiestFirst(defaults.half?.runQueueWaitMsPerOrder ?? {}, 1)}; ` +
      `wait / CPU ${times(ratio(total(defaults), cpu[0]))} / ${times(ratio(total(baseline), cpu[1]))}`,
    kind: "measured",
    note: "/proc/PID/task/*/schedstat (second field) of every thread of the stack, during the half-rate runs / final orders; summed over threads, so it can exceed the run's length",
  };
}

function cpuRows(baseline: ConfigResult, defaults: ConfigResult, stackCpu: Pair): TableRow[] {
  const rows: TableRow[] = [];
  const groups = [
    ...new Set([
      ...Object.keys(defaults.half?.cpuMsPerOrder ?? {}),
      ...Object.keys(baseline.half?.cpuMsPerOrder ?? {}),
    ]),
  ];
  const ms = (c: ConfigResult, k: string) => c.half?.cpuMsPerOrder[k] ?? Number.NaN;
  const key = (k: string) => (Number.isFinite(ms(defaults, k)) ? ms(defaults, k) : ms(baseline, k));
  for (const k of groups.sort((a, b) => key(b) - key(a)))
    rows.push({
      measure: `CPU per order at half the sustained rate: ${k}, defaults / 1 per tx`,
      result: pair([ms(defaults, k), ms(baseline, k)], 1, " ms"),
      spread: `${fmt((ms(defaults, k) / stackCpu[0]) * 100)}% / ${fmt((ms(baseline, k) / stackCpu[1]) * 100)}% of the stack's`,
      kind: "measured",
    });
  const other = (c: ConfigResult, k: string) => c.half?.besideCpuMsPerOrder[k] ?? Number.NaN;
  rows.push({
    measure: `CPU per order at half the sustained rate, not in the stack's: ${LOAD_GENERATOR}, defaults / 1 per tx`,
    result: pair([other(defaults, LOAD_GENERATOR), other(baseline, LOAD_GENERATOR)], 1, " ms"),
    spread: "",
    kind: "measured",
    note: "this process: node:http keep-alive client, bodies built before each step",
  });
  const beside = (c: ConfigResult) =>
    Object.entries(c.half?.besideCpuMsPerOrder ?? {}).filter(([k]) => k !== LOAD_GENERATOR);
  const sum = (c: ConfigResult) => (c.half ? beside(c).reduce((a, [, v]) => a + v, 0) : Number.NaN);
  rows.push({
    measure:
      "CPU per order at half the sustained rate, not in the stack's: monitoring, control service, supervisor, defaults / 1 per tx",
    result: pair([sum(defaults), sum(baseline)], 1, " ms"),
    spread: `defaults: ${beside(defaults)
      .map(([k, v]) => `${k} ${fmt(v, 1)}`)
      .join(", ")}`,
    kind: "measured",
    note: "Prometheus, Alertmanager, the exporters, the fault lab's control service and the local supervisor (its own process) run beside the system under test",
  });
  return rows;
}

export interface Machine {
  cores: number;
  /** The ceilings section's medians, when it ran before. */
  ceilings?: { brokerMedian?: number; pgMedian?: number };
}

function boundRows(m: Machine, sustained: Pair, stackCpu: Pair): TableRow[] {
  const brokerBound = ratio(m.ceilings?.brokerMedian ?? Number.NaN, PER_ORDER.deliveries);
  const pgBound = ratio(m.ceilings?.pgMedian ?? Number.NaN, PER_ORDER.businessTransactions);
  const bound = Math.min(brokerBound, pgBound);
  const share = (i: 0 | 1) => fmt(ratio(sustained[i] * stackCpu[i], m.cores * 1000) * 100);
  return [
    {
      measure: `per order (from the code): ${PER_ORDER.deliveries} deliveries of ${PER_ORDER.publishes} messages, ${PER_ORDER.businessTransactions} business transactions, ${PER_ORDER.relayStatements} relay statements`,
      result: `ceiling bound ${fmt(bound)} orders/s`,
      spread: `broker ${fmt(m.ceilings?.brokerMedian ?? Number.NaN)} msg/s / ${PER_ORDER.deliveries} = ${fmt(brokerBound)}; PostgreSQL ${fmt(m.ceilings?.pgMedian ?? Number.NaN)} tx/s / ${PER_ORDER.businessTransactions} = ${fmt(pgBound)}`,
      kind: "derived",
      note: "each ceiling measured alone (one transaction per message); together they share the same cores",
    },
    {
      measure: "sustained saga as a fraction of the ceiling bound, defaults / 1 per tx",
      result: `${fmt(ratio(sustained[0], bound) * 100, 1)}% / ${fmt(ratio(sustained[1], bound) * 100, 1)}%`,
      spread: "",
      kind: "derived",
    },
    {
      measure: "CPU-bound saga ceiling: cores / the stack's CPU per order, defaults / 1 per tx",
      result: pair([ratio(m.cores * 1000, stackCpu[0]), ratio(m.cores * 1000, stackCpu[1])], 0, " orders/s"),
      spread: `${m.cores} cores; sustained is ${share(0)}% / ${share(1)}% of it`,
      kind: "derived",
      note: "CPU per order at half the sustained rate includes fixed costs (idle polling) spread over the orders",
    },
  ];
}

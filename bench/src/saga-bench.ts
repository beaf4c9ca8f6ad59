// The full saga through the running services, twice in one run: first with the consumers
// applying one message per transaction (CONSUMER_BATCH_SIZE=1, the apps restarted with that variant),
// then with the defaults. For each: POST /orders on a step ladder up to 600 orders/s (open model) until
// final states stop keeping up, each step with the CPU it cost (step-cpu.ts); then half the sustained
// rate, with order written -> final p50/p99, the hop breakdown and the CPU every process tree spent per
// order. The apps run the variant they ran before the section again afterwards, whatever happened.
import os from "node:os";
import {
  type AppVariant,
  adminUrl,
  appsVariantInUse,
  replicasInUse,
  restartAppsWith,
  type Stack,
  serviceUrlsInUse,
} from "@orderflow/infra";
import pg from "pg";
import { cpuDelta, cpuSeconds, switchSnapshot, threadCountsBetween, threadSnapshot } from "./cpu.ts";
import { climb, LADDER, QUICK_LADDER } from "./ladder.ts";
import { createOrderClient, type OrderClient } from "./order-client.ts";
import { hopBreakdown } from "./saga-hops.ts";
import {
  type ConfigResult,
  type HalfRun,
  LOAD_GENERATOR,
  replicaRows,
  sagaRows,
  sagaSummary,
} from "./saga-report.ts";
import {
  GRACE_MS,
  pooledStep,
  runStep,
  type StepResult,
  type StepSamples,
  waitUntilFinal,
} from "./saga-step.ts";
import {
  fmt,
  type Section,
  type SectionContext,
  type SectionResult,
  sleep,
  type TableRow,
} from "./section.ts";
import { autovacuumRuns, settleDatabases } from "./settle.ts";
import { SELF_ONLY, stackProcesses } from "./stack-processes.ts";
import { type StepCpu, withStepCpu } from "./step-cpu.ts";
import { seedStock } from "./stock.ts";

type Config = { key: ConfigResult["key"]; label: string; variant: AppVariant; replicas: number };

const CONFIGS: Config[] = [
  {
    key: "baseline",
    label: "one message per transaction",
    variant: { env: { CONSUMER_BATCH_SIZE: "1", CONSUMER_CONCURRENCY: "4" } },
    replicas: 1,
  },
  { key: "defaults", label: "defaults", variant: {}, replicas: 1 },
];

/** `pnpm bench --replicas=N`: the defaults once more, with N of each service and relay. */
const replicasConfig = (n: number): Config => ({
  key: "replicas",
  label: `defaults, ${n} of each service and relay`,
  variant: {},
  replicas: n,
});

const WARM_ROUNDS = 3;

interface Plan {
  rates: readonly number[];
  stepSeconds: number;
  halfSeconds: number;
  /** Runs at half the sustained rate, pooled. */
  halfRepeats: number;
}

const logStep = (ctx: SectionContext, s: StepResult & { cpu?: StepCpu }, label: string) =>
  ctx.log(
    `  ${label} ${s.rate}/s: ${s.ok}/${s.sent} accepted, ${s.final} final, drop ${s.dropped}, err ${s.httpErrors}, ` +
      `drain ${fmt(s.drainSeconds, 1)} s, final p50 ${fmt(s.finalMs.p50)} ms p99 ${fmt(s.finalMs.p99)} ms, ` +
      `POST p99 ${fmt(s.httpMs.p99)} ms` +
      (s.cpu
        ? `, stack ${fmt(s.cpu.stackMsPerOrder, 1)} ms/order (${fmt(s.cpu.stackCores, 2)} cores, ${fmt(s.cpu.stackSwitchesPerOrder)} context switches/order), machine ${fmt(s.cpu.machineBusy * 100)}% busy`
        : "") +
      ` -> ${s.keptUp ? "kept up" : "fell behind"}`,
  );

/** One run at half the sustained rate and what it cost; halfRun pools several. */
interface HalfRepeat {
  step: StepResult;
  settleSeconds: number;
  autovacuums: number;
  /** Process group -> CPU seconds over the run (answers and drain included). */
  cpu: Record<string, number>;
  switches: Record<string, number>;
  /** Process group -> ns its threads were ready to run with no core free. */
  runQueueWaitNs: Record<string, number>;
}

/** One run, once the databases have had the maintenance of what ran before it (settle.ts). */
async function halfRepeat(
  stack: Stack,
  client: OrderClient,
  orderDb: pg.Pool,
  o: { rate: number; seconds: number; ids: string[]; samples: StepSamples },
): Promise<HalfRepeat> {
  const settleSeconds = await settleDatabases(stack);
  const autovacuumsBefore = await autovacuumRuns(stack);
  const procs = await stackProcesses(stack);
  const groups = { ...procs.underTest, ...procs.beside };
  const before = cpuSeconds(groups, SELF_ONLY);
  const switchesBefore = switchSnapshot(procs.underTest);
  const waitBefore = threadSnapshot(procs.underTest, "runQueueWaitNs");
  const benchBefore = process.cpuUsage();
  const step = await runStep(client, orderDb, {
    rate: o.rate,
    seconds: o.seconds,
    graceMs: 30_000,
    orderIds: o.ids,
    samples: o.samples,
  });
  const cpu = cpuDelta(before, cpuSeconds(groups, SELF_ONLY));
  const switches = threadCountsBetween(switchesBefore, switchSnapshot(procs.underTest));
  const runQueueWaitNs = threadCountsBetween(waitBefore, threadSnapshot(procs.underTest, "runQueueWaitNs"));
  const benchCpu = process.cpuUsage(benchBefore);
  cpu[LOAD_GENERATOR] = (benchCpu.user + benchCpu.system) / 1e6;
  const autovacuums = (await autovacuumRuns(stack)) - autovacuumsBefore;
  return { step, settleSeconds, autovacuums, cpu, switches, runQueueWaitNs };
}

const sumBy = (maps: Record<string, number>[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const m of maps) for (const [k, v] of Object.entries(m)) out[k] = (out[k] ?? 0) + v;
  return out;
};

/**
 * Half the sustained rate, `plan.halfRepeats` times, each run after its own settle: the figures are pooled
 * (every order of every run in the latencies, all their CPU over all their final orders), each run's own
 * beside them. One 30 s run's p99 moved by 1.5-2.7x between runs on one machine (313-842 ms in one bench
 * run); a single run could not tell a change to the p99 from the machine's moods.
 */
async function halfRun(
  stack: Stack,
  client: OrderClient,
  orderDb: pg.Pool,
  rate: number,
  plan: Pick<Plan, "halfSeconds" | "halfRepeats">,
  log: (run: StepResult, i: number) => void,
): Promise<HalfRun> {
  const ids: string[] = [];
  const samples: StepSamples = { httpMs: [], finalMs: [] };
  const runs: HalfRepeat[] = [];
  for (let i = 0; i < plan.halfRepeats; i++) {
    const run = await halfRepeat(stack, client, orderDb, { rate, seconds: plan.halfSeconds, ids, samples });
    log(run.step, i);
    runs.push(run);
  }
  const step = pooledStep(
    runs.map((r) => r.step),
    samples,
  );
  const procs = await stackProcesses(stack);
  const cpu = sumBy(runs.map((r) => r.cpu));
  const switches = sumBy(runs.map((r) => r.switches));
  const waitNs = sumBy(runs.map((r) => r.runQueueWaitNs));
  const perOrder = (k: string) => ((cpu[k] ?? 0) * 1000) / Math.max(1, step.final);
  const stackMsPerOrder = (r: HalfRepeat) =>
    Object.keys(procs.underTest).reduce(
      (a, k) => a + ((r.cpu[k] ?? 0) * 1000) / Math.max(1, r.step.final),
      0,
    );
  const cpuMsPerOrder = Object.fromEntries(Object.keys(procs.underTest).map((k) => [k, perOrder(k)]));
  return {
    rate,
    seconds: plan.halfSeconds,
    settleSeconds: runs.reduce((a, r) => a + r.settleSeconds, 0),
    autovacuums: runs.reduce((a, r) => a + r.autovacuums, 0),
    step,
    repeats: runs.map((r) => ({
      final: r.step.final,
      finalMs: r.step.finalMs,
      stackCpuMsPerOrder: stackMsPerOrder(r),
      autovacuums: r.autovacuums,
    })),
    cpuMsPerOrder,
    stackCpuMsPerOrder: Object.values(cpuMsPerOrder).reduce((a, b) => a + b, 0),
    besideCpuMsPerOrder: Object.fromEntries(
      [LOAD_GENERATOR, ...Object.keys(procs.beside)].map((k) => [k, perOrder(k)]),
    ),
    cpuSeconds: cpu,
    switchesPerOrder: Object.fromEntries(
      Object.entries(switches).map(([k, n]) => [k, n / Math.max(1, step.final)]),
    ),
    runQueueWaitMsPerOrder: Object.fromEntries(
      Object.entries(waitNs).map(([k, ns]) => [k, ns / 1e6 / Math.max(1, step.final)]),
    ),
    hops: await hopBreakdown(stack, ids),
  };
}

/**
 * Warms the freshly restarted services (connections, JIT, Prisma, consumers' first deliveries) until a
 * short step keeps up, at most WARM_ROUNDS times, so the ladder's first step does not pay for it.
 */
async function warmUp(ctx: SectionContext, client: OrderClient, orderDb: pg.Pool): Promise<void> {
  for (let round = 1; round <= WARM_ROUNDS; round++) {
    const s = await runStep(client, orderDb, { rate: 10, seconds: 3, graceMs: 20_000 });
    if (s.keptUp) return;
    logStep(ctx, s, `warm-up ${round}/${WARM_ROUNDS}`);
  }
}

async function runConfig(
  ctx: SectionContext,
  c: Config,
  plan: Plan,
  orderDb: pg.Pool,
): Promise<ConfigResult> {
  ctx.log(`  ${c.label}: apps running ${JSON.stringify(c.variant)}, ${c.replicas} of each`);
  // Spread over the order instances, as a load balancer in front of them would.
  const client = createOrderClient(serviceUrlsInUse(ctx.stack).order);
  try {
    await warmUp(ctx, client, orderDb);
    const { underTest } = await stackProcesses(ctx.stack);
    let lastIds: string[] = [];
    const ladder = await climb(plan.rates, async (rate) => {
      lastIds = [];
      const s = await withStepCpu(underTest, () =>
        runStep(client, orderDb, { rate, seconds: plan.stepSeconds, graceMs: GRACE_MS, orderIds: lastIds }),
      );
      logStep(ctx, s, "step");
      return s;
    });
    const base = { ...c, rates: plan.rates, stepSeconds: plan.stepSeconds, ...ladder };
    if (ladder.sustained === 0) {
      ctx.log(`  ${c.label}: did not keep up even at ${plan.rates[0]}/s`);
      return { ...base, half: null };
    }
    // The step that fell behind leaves a backlog: let it finish so the half-rate run starts clean.
    const left = await waitUntilFinal(orderDb, lastIds, performance.now() + 60_000, 500);
    if (left > 0) ctx.log(`  ${left} orders of the last step still not final after 60 s`);
    await sleep(2_000);
    const half = await halfRun(
      ctx.stack,
      client,
      orderDb,
      Math.max(1, Math.round(ladder.sustained / 2)),
      plan,
      (run, i) => logStep(ctx, run, `half rate, run ${i + 1}/${plan.halfRepeats},`),
    );
    logStep(ctx, half.step, `half rate, ${plan.halfRepeats} runs pooled,`);
    ctx.log(
      `  ${c.label}: stack CPU ${fmt(half.stackCpuMsPerOrder, 1)} ms per order at ${half.rate}/s ` +
        `(databases settled in ${fmt(half.settleSeconds, 1)} s; ${half.autovacuums} autovacuum runs during it)`,
    );
    return { ...base, half };
  } finally {
    client.close();
  }
}

/**
 * Runs every configuration, then the variant the apps ran before, whatever happened (a failure to
 * restore is thrown only when the configurations themselves succeeded).
 */
async function runConfigs(
  ctx: SectionContext,
  configs: readonly Config[],
  plan: Plan,
  orderDb: pg.Pool,
): Promise<ConfigResult[]> {
  const previous = appsVariantInUse(ctx.stack);
  const previousReplicas = replicasInUse(ctx.stack);
  const results: ConfigResult[] = [];
  let restoreError: unknown;
  try {
    for (const c of configs) {
      if (await restartAppsWith(ctx.stack, c.variant, c.replicas))
        ctx.log(`  apps restarted with ${JSON.stringify(c.variant)}, ${c.replicas} of each`);
      results.push(await runConfig(ctx, c, plan, orderDb));
    }
  } finally {
    await restartAppsWith(ctx.stack, previous, previousReplicas).then(
      (restarted) => {
        if (restarted) ctx.log(`  apps restarted with the variant of before, ${JSON.stringify(previous)}`);
      },
      (e: unknown) => {
        restoreError = e;
        ctx.log(`  could not restore the apps' variant ${JSON.stringify(previous)}: ${(e as Error).message}`);
      },
    );
  }
  if (restoreError) throw restoreError;
  return results;
}

export const sagaSection: Section = {
  name: "saga",
  needsServices: true,
  async run(ctx): Promise<SectionResult> {
    const plan: Plan = ctx.quick
      ? { rates: QUICK_LADDER, stepSeconds: 4, halfSeconds: 6, halfRepeats: 2 }
      : // 20 s a step: offered a fraction f more than it absorbs, the saga is f * 20 s behind by the
        // step's end, so "every order final within 5 s" passes up to 1.25 times what it sustains. 8 s
        // steps passed up to 1.6 times (150/s with a written -> final p50 of 3.7 s).
        { rates: LADDER, stepSeconds: 20, halfSeconds: 30, halfRepeats: 3 };
    await seedStock(`http://127.0.0.1:${ctx.stack.layout.servicePorts.inventory}`);
    const orderDb = new pg.Pool({ connectionString: adminUrl(ctx.stack.pg, "orderflow_order"), max: 2 });
    try {
      const configs = ctx.replicas ? [...CONFIGS, replicasConfig(ctx.replicas)] : CONFIGS;
      const [baseline, defaults, replicas] = (await runConfigs(ctx, configs, plan, orderDb)) as [
        ConfigResult,
        ConfigResult,
        ConfigResult | undefined,
      ];
      const ceilings = ctx.earlier.get("ceilings")?.data as
        | { brokerMedian?: number; pgMedian?: number }
        | undefined;
      const cores = os.availableParallelism?.() ?? os.cpus().length;
      const rows = sagaRows(baseline, defaults, plan.halfSeconds, {
        cores,
        ...(ceilings ? { ceilings } : {}),
      });
      if (baseline.half) {
        const services = ["order service", "inventory service", "points service"].reduce(
          (a, k) => a + (baseline.half?.cpuMsPerOrder[k] ?? 0),
          0,
        );
        rows.push(...prismaShare(ctx, baseline.half.stackCpuMsPerOrder, services));
      }
      rows.push(repliesRow(defaults));
      if (replicas) rows.push(...replicaRows(defaults, replicas));
      return {
        title: "The full saga through the running services: defaults against one message per transaction",
        rows,
        data: { plan, configs: { baseline, defaults, ...(replicas ? { replicas } : {}) } },
        summary: sagaSummary(baseline, defaults, replicas),
      };
    } finally {
      await orderDb.end().catch(() => {});
    }
  },
};

// The two replies on an order's path are written by consumer handlers; the consumer runtime wakes the relay after each
// handler's commit, so they take the after-commit fast path like the POST's event. Without that wake-up
// each waited 0.5-1 s for a sweep.
function repliesRow(c: ConfigResult): TableRow {
  const wait = (i: number) => c.half?.hops[i]?.ms.p50 ?? Number.NaN;
  return {
    measure: `replies written by consumers wait in their outbox like the POST's event (fast path), ${c.label}`,
    result: `${fmt(wait(2))} / ${fmt(wait(4))} ms p50`,
    spread: `inventory.reserved / points.granted; POST's order.created ${fmt(wait(0))} ms`,
    kind: "measured",
    note: "a sweep-only reply would wait about half the relay's 1 s poll interval",
  };
}

/**
 * Prisma's share of an order's CPU, estimated from the prisma section's CPU per transaction (client and
 * PostgreSQL, Prisma minus raw pg), for the one-message-per-transaction configuration (where an order
 * is five transactions; a consumer batch shares one). Five business transactions per order: POST (order shape), reserve
 * (inventory), grant (points), and the order service's two reply transactions, for which the mean of the
 * three shapes stands in.
 */
function prismaShare(ctx: SectionContext, cpuPerOrderMs: number, serviceCpuMs: number): TableRow[] {
  type Cpu = { prisma: { client: number; server: number }; raw: { client: number; server: number } };
  const data = ctx.earlier.get("prisma")?.data as
    | Record<string, { cpuMsPerTx?: Cpu } | undefined>
    | undefined;
  if (!data) return [];
  const extra = (svc: string, side: "client" | "server") => {
    const c = data[svc]?.cpuMsPerTx;
    return c ? c.prisma[side] - c.raw[side] : Number.NaN;
  };
  const perOrder = (side: "client" | "server") => {
    const o = extra("order", side);
    const i = extra("inventory", side);
    const p = extra("points", side);
    return o + i + p + (2 * (o + i + p)) / 3;
  };
  const client = perOrder("client");
  const server = perOrder("server");
  return [
    {
      measure:
        "Prisma's extra CPU per order (5 business transactions), one message per transaction: in the services / in PostgreSQL",
      result: `~${fmt(client, 1)} / ~${fmt(server, 1)} ms`,
      spread: `~${fmt(((client + server) / cpuPerOrderMs) * 100, 0)}% of the ${fmt(cpuPerOrderMs, 1)} ms per order`,
      kind: "estimated",
      note: "Prisma minus raw pg CPU per transaction from the Prisma section; the two reply transactions approximated by the mean",
    },
    {
      measure:
        "the services' other CPU per order (HTTP, handlers, AMQP client, JSON, relay fast path), one message per transaction",
      result: `~${fmt(serviceCpuMs - client, 1)} ms`,
      spread: `services' measured ${fmt(serviceCpuMs, 1)} ms minus Prisma's client-side ${fmt(client, 1)} ms`,
      kind: "estimated",
    },
  ];
}

// orderflow's relay against the seed baseline and against the broker alone, in the same run, on the same
// scratch database and scratch queue.
//  - throughput: N pending rows already committed (a backlog), the relay started, time until every row
//    is confirmed (status 1, attempt counted) -> rows/s; interleaved with the same number of messages
//    published straight to the same queue with a window of 500 (the broker alone, the relay's ceiling:
//    bare messages, and the relay's own wire form, on one confirm channel and on the relay's), and with
//    orderflow's relay sweeping one batch at a time and on one channel (what each of those buys). Each run's CPU per row is read for the publishing process,
//    PostgreSQL and the broker: on shared cores the relay's share of the ceiling follows them;
//  - latency: rows committed one per transaction at a fixed rate (open model), consumed by a plain
//    consumer as admin; latency = delivery time - commit time of the row, same process clock.
import { amqpUrls, waitFor } from "@orderflow/infra";
import { publishOptions } from "@orderflow/messaging";
import { type ClaimedRow, OUTBOX_MIGRATIONS_DIR, RELAY_PUBLISH_CHANNELS, toMessage } from "@orderflow/outbox";
import type pg from "pg";
import { publishWindowed, type WindowedMessage } from "./ceilings.ts";
import { cpuDelta, cpuSeconds, postgresRoots } from "./cpu.ts";
import { createOrderflowRelay } from "./orderflow-relay.ts";
import { confirmedCount, insertPending, writeOne } from "./outbox-rows.ts";
import { createScratchDb, type ScratchDb } from "./scratch-db.ts";
import { createScratchQueue, EXCHANGE, type ScratchQueue } from "./scratch-queue.ts";
import {
  fmt,
  fmtSpread,
  type Section,
  type SectionContext,
  type SectionResult,
  sleep,
  type TableRow,
} from "./section.ts";
import { type BenchRelay, createSeedRelay } from "./seed-relay.ts";
import { stackProcesses } from "./stack-processes.ts";
import { type Latency, latency, ratio, spread } from "./stats.ts";

type Impl = "orderflow" | "baseline" | "orderflowOneBatch" | "orderflowOneChannel";

function makeRelay(impl: Impl, ctx: SectionContext, db: ScratchDb): BenchRelay {
  // All publish as the order service's broker user, starting on the same node.
  const urls = amqpUrls(ctx.stack, "order");
  if (impl === "baseline")
    return createSeedRelay({ pool: db.pool, amqpUrl: urls[0] as string, exchange: EXCHANGE });
  return createOrderflowRelay({
    pool: db.pool,
    amqpUrls: urls,
    ...(impl === "orderflowOneBatch" ? { config: { sweepConcurrency: 1 } } : {}),
    ...(impl === "orderflowOneChannel" ? { channels: 1 } : {}),
  });
}

/** Microseconds of CPU per row (or message) of the process doing the publishing, PostgreSQL and the broker. */
export interface CpuPerRow {
  publisher: number;
  postgres: number;
  broker: number;
  total: number;
}

/** The process trees a run's CPU is read from: this process publishes (the relay runs in it). */
type CpuRoots = { postgres: number[]; broker: number[] };

async function cpuRoots(ctx: SectionContext): Promise<CpuRoots> {
  return { postgres: postgresRoots(ctx), broker: (await stackProcesses(ctx.stack)).underTest.rabbitmq ?? [] };
}

/** Runs `fn` and returns its result with the CPU it cost per unit, over `units()` units. */
async function perUnitCpu<T>(roots: CpuRoots, fn: () => Promise<T>, units: (r: T) => number) {
  const own0 = process.cpuUsage();
  const before = cpuSeconds(roots);
  const result = await fn();
  const d = cpuDelta(before, cpuSeconds(roots));
  const own = process.cpuUsage(own0);
  const n = Math.max(1, units(result));
  const us = (seconds: number) => (seconds * 1e6) / n;
  const cpu: CpuPerRow = {
    publisher: (own.user + own.system) / n,
    postgres: us(d.postgres ?? 0),
    broker: us(d.broker ?? 0),
    total: 0,
  };
  cpu.total = cpu.publisher + cpu.postgres + cpu.broker;
  return { result, cpu };
}

/**
 * The relay's own wire form of the bench's rows (outbox-rows.ts): the same body, properties and headers,
 * persistent and mandatory. Its headers and properties cost the broker more than a bare message does.
 */
function relayMessages(routingKey: string): (i: number) => WindowedMessage {
  const createdAt = new Date();
  return (i) => {
    const id = crypto.randomUUID();
    const row: ClaimedRow = {
      id: String(i + 1),
      messageId: crypto.randomUUID(),
      eventType: routingKey,
      aggregateType: "order",
      aggregateId: id,
      payload: JSON.stringify({
        orderId: id,
        customerId: `c-${i % 1000}`,
        lines: [{ sku: `SKU-${i % 50}`, quantity: 2, unitPrice: 999 }],
        total: 1998,
        createdAt: createdAt.toISOString(),
      }),
      schemaVersion: 1,
      headers: {},
      orderingKey: null,
      attempts: 0,
      createdAt,
      sequence: null,
    };
    const m = toMessage(row);
    return { body: m.body, options: publishOptions(m) };
  };
}

/**
 * The broker alone on this section's queue and message count, with the ceilings section's bare messages
 * or with the relay's own (`same`), on one confirm channel or on as many as the relay publishes on.
 */
async function brokerAloneOnce(
  ctx: SectionContext,
  q: ScratchQueue,
  messages: number,
  roots: CpuRoots,
  same: boolean,
  channels = 1,
) {
  await q.purge();
  const url = amqpUrls(ctx.stack, "order")[0] as string;
  const shape = same ? relayMessages(q.routingKey) : undefined;
  const { result: rate, cpu } = await perUnitCpu(
    roots,
    () => publishWindowed(url, q.routingKey, messages, 500, shape, channels),
    () => messages,
  );
  await q.purge();
  return { rate, cpu };
}

async function reset(db: ScratchDb, q: ScratchQueue): Promise<void> {
  await db.pool.query("TRUNCATE outbox");
  await q.purge();
}

/**
 * Waits until `rows` rows are confirmed. Counting them every 20 ms would read every sent row each time:
 * on a 50,000-row backlog that costs PostgreSQL about as much CPU as the relay's own statements, taken
 * from the contender being timed. So it waits on the pending rows through their partial index (the
 * seed's relay leaves status 0 before its confirm), and counts only for the last confirms.
 */
async function waitAllConfirmed(pool: pg.Pool, rows: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pendingLeft = async () =>
    (await pool.query<{ any: boolean }>("SELECT EXISTS (SELECT 1 FROM outbox WHERE status = 0) AS any"))
      .rows[0]?.any ?? true;
  await waitFor("no pending row", async () => !(await pendingLeft()), { timeoutMs, intervalMs: 20 });
  await waitFor(`${rows} rows confirmed`, async () => (await confirmedCount(pool)) >= rows, {
    timeoutMs: Math.max(1, deadline - Date.now()),
    intervalMs: 5,
  });
}

/** One throughput run: rows/s from relay start to the last confirmed row. */
async function throughputOnce(
  impl: Impl,
  rows: number,
  ctx: SectionContext,
  db: ScratchDb,
  q: ScratchQueue,
  roots: CpuRoots,
) {
  await reset(db, q);
  await insertPending(db.pool, rows, q.routingKey);
  await db.pool.query("ANALYZE outbox");
  const relay = makeRelay(impl, ctx, db);
  const timeoutMs = impl === "baseline" ? rows * 40 + 10_000 : rows * 5 + 30_000;
  const t0 = performance.now();
  const { result: done, cpu } = await perUnitCpu(
    roots,
    async () => {
      await relay.start();
      return await waitAllConfirmed(db.pool, rows, timeoutMs).then(
        () => true,
        () => false,
      );
    },
    () => rows,
  );
  const seconds = (performance.now() - t0) / 1000;
  await relay.stop();
  const confirmed = await confirmedCount(db.pool);
  if (!done) ctx.log(`  ${impl}: only ${confirmed}/${rows} confirmed before the timeout`);
  return { rows, confirmed, seconds, rowsPerSec: confirmed / seconds, cpu };
}

/** One latency run at `rate` rows/s for `seconds`; returns commit-to-consume latencies in ms. */
async function latencyOnce(
  impl: Impl,
  rate: number,
  seconds: number,
  ctx: SectionContext,
  db: ScratchDb,
  q: ScratchQueue,
) {
  await reset(db, q);
  const committedAt = new Map<string, number>();
  const receivedAt = new Map<string, number>();
  const stopConsumer = await q.consume((m) => {
    const id = m.properties.messageId as string | undefined;
    if (id && !receivedAt.has(id)) receivedAt.set(id, performance.now());
  });
  const relay = makeRelay(impl, ctx, db);
  await relay.start();
  const total = Math.round(rate * seconds);
  const writes: Promise<void>[] = [];
  let errors = 0;
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    // Open model: each write starts at its scheduled time whether or not earlier ones finished.
    await sleep(t0 + (i * 1000) / rate - performance.now());
    writes.push(
      writeOne(db.pool, q.routingKey, (ids) => {
        const now = performance.now();
        for (const id of ids) committedAt.set(id, now);
        relay.afterCommit(ids);
      }).catch(() => {
        errors++;
      }),
    );
  }
  await Promise.all(writes);
  const offeredSeconds = (performance.now() - t0) / 1000;
  // Drain: the baseline may still have a backlog to work off.
  // A backlog left after a minute shows as missing latencies, not as a failed section.
  await waitFor("every committed row received", () => receivedAt.size >= committedAt.size, {
    timeoutMs: 60_000,
    intervalMs: 50,
  }).catch(() => {});
  await relay.stop();
  await stopConsumer();
  const lat: number[] = [];
  for (const [id, c] of committedAt) {
    const r = receivedAt.get(id);
    if (r !== undefined) lat.push(r - c);
  }
  return {
    rate,
    seconds,
    achievedRate: committedAt.size / offeredSeconds,
    committed: committedAt.size,
    received: lat.length,
    errors,
    latency: latency(lat),
  };
}

const fmtCpu = (c: CpuPerRow) =>
  `${fmt(c.total)} µs/row (publisher ${fmt(c.publisher)}, PostgreSQL ${fmt(c.postgres)}, broker ${fmt(c.broker)})`;

/** The median of each part over the runs. */
const medianCpu = (runs: CpuPerRow[]): CpuPerRow => {
  const m = (k: keyof CpuPerRow) => spread(runs.map((r) => r[k])).median;
  return { publisher: m("publisher"), postgres: m("postgres"), broker: m("broker"), total: m("total") };
};

const summarize = (runs: { latency: Latency }[]) => ({
  p50: spread(runs.map((r) => r.latency.p50)),
  p99: spread(runs.map((r) => r.latency.p99)),
  max: spread(runs.map((r) => r.latency.max)),
});

export const relaySection: Section = {
  name: "relay",
  async run(ctx): Promise<SectionResult> {
    const repeats = ctx.quick ? 2 : 3;
    // At 5-10k rows/s a 10,000-row backlog is gone in 1-2 s, where the connection and the first claim
    // weigh; 50,000 take several seconds.
    const sizes = ctx.quick ? { orderflow: 10_000, baseline: 200 } : { orderflow: 50_000, baseline: 500 };
    const latencyPlan = ctx.quick
      ? { rate: 20, seconds: 5, fastRate: 200, fastSeconds: 4, repeats: 2 }
      : { rate: 20, seconds: 12, fastRate: 200, fastSeconds: 10, repeats: 3 };
    const db = await createScratchDb(ctx.stack, "relay", [OUTBOX_MIGRATIONS_DIR], 4);
    const q = await createScratchQueue(ctx.stack, "relay");
    try {
      const tput: Record<Impl, Awaited<ReturnType<typeof throughputOnce>>[]> = {
        orderflow: [],
        orderflowOneBatch: [],
        orderflowOneChannel: [],
        baseline: [],
      };
      const brokerAlone: number[] = [];
      const brokerAloneCpu: CpuPerRow[] = [];
      const sameMessages: number[] = [];
      const sameMessagesCpu: CpuPerRow[] = [];
      // The broker alone on as many channels as the relay publishes on: bare, and the relay's messages.
      const channels = RELAY_PUBLISH_CHANNELS;
      const onChannels: number[] = [];
      const onChannelsCpu: CpuPerRow[] = [];
      const sameShape: number[] = [];
      const sameShapeCpu: CpuPerRow[] = [];
      const roots = await cpuRoots(ctx);
      for (let i = 0; i < repeats; i++) {
        const alone = await brokerAloneOnce(ctx, q, sizes.orderflow, roots, false);
        brokerAlone.push(alone.rate);
        brokerAloneCpu.push(alone.cpu);
        ctx.log(`  broker alone #${i + 1}: ${fmt(alone.rate)} msg/s, CPU ${fmtCpu(alone.cpu)}`);
        const same = await brokerAloneOnce(ctx, q, sizes.orderflow, roots, true);
        sameMessages.push(same.rate);
        sameMessagesCpu.push(same.cpu);
        ctx.log(
          `  broker alone, the relay's messages #${i + 1}: ${fmt(same.rate)} msg/s, CPU ${fmtCpu(same.cpu)}`,
        );
        const wide = await brokerAloneOnce(ctx, q, sizes.orderflow, roots, false, channels);
        onChannels.push(wide.rate);
        onChannelsCpu.push(wide.cpu);
        ctx.log(
          `  broker alone on ${channels} channels #${i + 1}: ${fmt(wide.rate)} msg/s, CPU ${fmtCpu(wide.cpu)}`,
        );
        const shaped = await brokerAloneOnce(ctx, q, sizes.orderflow, roots, true, channels);
        sameShape.push(shaped.rate);
        sameShapeCpu.push(shaped.cpu);
        ctx.log(
          `  broker alone, the relay's messages on ${channels} channels #${i + 1}: ${fmt(shaped.rate)} msg/s, CPU ${fmtCpu(shaped.cpu)}`,
        );
        for (const impl of ["orderflow", "orderflowOneBatch", "orderflowOneChannel", "baseline"] as const) {
          const r = await throughputOnce(
            impl,
            sizes[impl === "baseline" ? "baseline" : "orderflow"],
            ctx,
            db,
            q,
            roots,
          );
          ctx.log(
            `  throughput ${impl} #${i + 1}: ${fmt(r.rowsPerSec)} rows/s (${r.confirmed} rows, ${fmt(r.seconds, 1)} s), CPU ${fmtCpu(r.cpu)}`,
          );
          tput[impl].push(r);
        }
      }
      const lat: Record<string, Awaited<ReturnType<typeof latencyOnce>>[]> = {
        orderflow: [],
        baseline: [],
        orderflowFast: [],
      };
      for (let i = 0; i < latencyPlan.repeats; i++) {
        for (const impl of ["orderflow", "baseline"] as const) {
          const r = await latencyOnce(impl, latencyPlan.rate, latencyPlan.seconds, ctx, db, q);
          ctx.log(
            `  latency ${impl} @${r.rate}/s #${i + 1}: p50 ${fmt(r.latency.p50, 1)} ms p99 ${fmt(r.latency.p99, 1)} ms (${r.received}/${r.committed})`,
          );
          lat[impl]?.push(r);
        }
        const f = await latencyOnce("orderflow", latencyPlan.fastRate, latencyPlan.fastSeconds, ctx, db, q);
        ctx.log(
          `  latency orderflow @${f.rate}/s #${i + 1}: p50 ${fmt(f.latency.p50, 1)} ms p99 ${fmt(f.latency.p99, 1)} ms`,
        );
        lat.orderflowFast?.push(f);
      }
      const tO = spread(tput.orderflow.map((r) => r.rowsPerSec));
      const t1 = spread(tput.orderflowOneBatch.map((r) => r.rowsPerSec));
      const tC = spread(tput.orderflowOneChannel.map((r) => r.rowsPerSec));
      const bW = spread(onChannels);
      const bX = spread(sameShape);
      const cW = medianCpu(onChannelsCpu);
      const cX = medianCpu(sameShapeCpu);
      const wideShares = tput.orderflow.map((r, i) => ratio(r.rowsPerSec, onChannels[i] ?? Number.NaN));
      const shapeShares = tput.orderflow.map((r, i) => ratio(r.rowsPerSec, sameShape[i] ?? Number.NaN));
      const bA = spread(brokerAlone);
      const cO = medianCpu(tput.orderflow.map((r) => r.cpu));
      const cA = medianCpu(brokerAloneCpu);
      const bS = spread(sameMessages);
      const cS = medianCpu(sameMessagesCpu);
      const sameShares = tput.orderflow.map((r, i) => ratio(r.rowsPerSec, sameMessages[i] ?? Number.NaN));
      // Each repeat's relay against the broker alone measured just before it.
      const shares = tput.orderflow.map((r, i) => ratio(r.rowsPerSec, brokerAlone[i] ?? Number.NaN));
      const tB = spread(tput.baseline.map((r) => r.rowsPerSec));
      const lO = summarize(lat.orderflow ?? []);
      const lB = summarize(lat.baseline ?? []);
      const lF = summarize(lat.orderflowFast ?? []);
      // Ratio of medians, and the per-repeat ratios' range (pairs ran back to back).
      const tRatios = tput.orderflow.map((r, i) =>
        ratio(r.rowsPerSec, tput.baseline[i]?.rowsPerSec ?? Number.NaN),
      );
      const p99Ratios = (lat.orderflow ?? []).map((r, i) =>
        ratio(lat.baseline?.[i]?.latency.p99 ?? Number.NaN, r.latency.p99),
      );
      const rows: TableRow[] = [
        {
          measure: `relay throughput, orderflow (${fmt(sizes.orderflow)}-row backlog)`,
          result: `${fmt(tO.median)} rows/s`,
          spread: fmtSpread(tO),
          kind: "measured",
        },
        {
          measure: `the broker alone: ${fmt(sizes.orderflow)} bare messages (a message id, ~200 B) to the same queue, confirms, window 500`,
          result: `${fmt(bA.median)} msg/s`,
          spread: fmtSpread(bA),
          kind: "measured",
          note: "before each repeat's relay runs: the ceiling the relay is held to",
        },
        {
          measure: "orderflow's relay / the broker alone (goal >= 90%)",
          result: `${fmt(ratio(tO.median, bA.median) * 100)}%`,
          spread: fmtSpread(spread(shares.map((x) => x * 100)), 0, "%"),
          kind: "derived",
          note: "result: ratio of the medians; spread: each repeat's relay over the broker alone just before it",
        },
        {
          measure: "the broker alone with the relay's own messages (its properties, headers, mandatory)",
          result: `${fmt(bS.median)} msg/s; the relay at ${fmt(ratio(tO.median, bS.median) * 100)}% of it`,
          spread: `${fmtSpread(bS)}; ${fmtSpread(spread(sameShares.map((x) => x * 100)), 0, "%")}`,
          kind: "measured",
          note: `the wire form the relay publishes: the broker's CPU per message ${fmt(cS.broker)} µs, against ${fmt(cA.broker)} µs for a bare one`,
        },
        {
          measure: "CPU per row: orderflow's relay / the broker alone with the relay's messages / bare",
          result: `${fmt(cO.total)} / ${fmt(cS.total)} / ${fmt(cA.total)} µs`,
          spread: `${fmtSpread(spread(tput.orderflow.map((r) => r.cpu.total)))} / ${fmtSpread(spread(sameMessagesCpu.map((c) => c.total)))} / ${fmtSpread(spread(brokerAloneCpu.map((c) => c.total)))}`,
          kind: "measured",
          note: `relay ${fmt(cO.publisher)} + PostgreSQL ${fmt(cO.postgres)} + broker ${fmt(cO.broker)}; the same messages alone: publisher ${fmt(cS.publisher)} + broker ${fmt(cS.broker)}. Where the three share the cores, the relay's share of the broker alone follows these: about ${fmt(ratio(cA.total, cO.total) * 100)}% of the bare ceiling`,
        },
        {
          measure: `the broker alone on ${channels} confirm channels of one connection (the relay's): bare messages / the relay's own`,
          result: `${fmt(bW.median)} / ${fmt(bX.median)} msg/s; the relay at ${fmt(ratio(tO.median, bW.median) * 100)}% / ${fmt(ratio(tO.median, bX.median) * 100)}%`,
          spread: `${fmtSpread(bW)} / ${fmtSpread(bX)}; ${fmtSpread(spread(wideShares.map((x) => x * 100)), 0, "%")} / ${fmtSpread(spread(shapeShares.map((x) => x * 100)), 0, "%")}`,
          kind: "measured",
          note: `each channel a window of 500; the broker's CPU per message ${fmt(cW.broker)} / ${fmt(cX.broker)} µs, against ${fmt(cA.broker)} µs on one channel`,
        },
        {
          measure: `orderflow's relay on one confirm channel (OUTBOX_PUBLISH_CHANNELS=1) / the default (${channels})`,
          result: `${fmt(tC.median)} / ${fmt(tO.median)} rows/s`,
          spread: fmtSpread(tC),
          kind: "measured",
          note: `${fmt(ratio(tO.median, tC.median), 2)}x: sweep batches on two channels at once`,
        },
        {
          measure:
            "orderflow's relay, one sweep batch at a time (OUTBOX_SWEEP_CONCURRENCY=1) / the default (2)",
          result: `${fmt(t1.median)} / ${fmt(tO.median)} rows/s`,
          spread: fmtSpread(t1),
          kind: "measured",
          note: `${fmt(ratio(tO.median, t1.median), 2)}x: the next batch claimed and published while one awaits its confirms`,
        },
        {
          measure: `relay throughput, seed baseline (${fmt(sizes.baseline)}-row backlog)`,
          result: `${fmt(tB.median)} rows/s`,
          spread: fmtSpread(tB),
          kind: "measured",
          note: "scan every 1 s (fixed delay), 100 rows, CAS + awaited confirm + mark per row",
        },
        {
          measure: "relay throughput ratio (goal >= 10x)",
          result: `${fmt(ratio(tO.median, tB.median), 1)}x`,
          spread: fmtSpread(spread(tRatios), 1, "x"),
          kind: "derived",
          note: "result: ratio of the medians; spread: the ratio within each back-to-back pair",
        },
        {
          measure: `commit-to-consume p50 @ ${latencyPlan.rate} rows/s, orderflow / baseline`,
          result: `${fmt(lO.p50.median, 1)} ms / ${fmt(lB.p50.median, 0)} ms`,
          spread: `${fmtSpread(lO.p50, 1)} / ${fmtSpread(lB.p50)}`,
          kind: "measured",
          note: `${latencyPlan.rate} rows/s: a rate the baseline sustains on the same host (see its throughput)`,
        },
        {
          measure: `commit-to-consume p99 @ ${latencyPlan.rate} rows/s, orderflow / baseline`,
          result: `${fmt(lO.p99.median, 1)} ms / ${fmt(lB.p99.median, 0)} ms`,
          spread: `${fmtSpread(lO.p99, 1)} / ${fmtSpread(lB.p99)}`,
          kind: "measured",
        },
        {
          measure: "p99 ratio baseline / orderflow (goal >= 50x)",
          result: `${fmt(ratio(lB.p99.median, lO.p99.median), 0)}x`,
          spread: fmtSpread(spread(p99Ratios), 0, "x"),
          kind: "derived",
        },
        {
          measure: `commit-to-consume @ ${latencyPlan.fastRate} rows/s, orderflow only: p50 / p99`,
          result: `${fmt(lF.p50.median, 1)} ms / ${fmt(lF.p99.median, 1)} ms`,
          spread: `p99 ${fmtSpread(lF.p99, 1)}`,
          kind: "measured",
          note: `the baseline cannot sustain ${latencyPlan.fastRate} rows/s (its ceiling is below 100 rows/s), so its latency there only grows with the run's length`,
        },
      ];
      return {
        title: "Relay: orderflow against the seed baseline",
        rows,
        data: {
          sizes,
          latencyPlan,
          throughput: tput,
          brokerAlone,
          brokerAloneCpu,
          sameMessages,
          sameMessagesCpu,
          channels,
          onChannels,
          onChannelsCpu,
          sameShape,
          sameShapeCpu,
          latency: lat,
          medians: { tO, t1, tC, bA, bW, bX, tB, lO, lB, lF },
        },
        summary: {
          orderflowRowsPerSecond: tO.median,
          oneBatchAtATimeRowsPerSecond: t1.median,
          oneChannelRowsPerSecond: tC.median,
          publishChannels: channels,
          baselineRowsPerSecond: tB.median,
          brokerAloneMessagesPerSecond: bA.median,
          overBrokerAlone: ratio(tO.median, bA.median),
          brokerAloneSameMessagesPerSecond: bS.median,
          overBrokerAloneSameMessages: ratio(tO.median, bS.median),
          cpuMicrosPerRow: cO,
          brokerAloneCpuMicrosPerMessage: cA,
          brokerAloneOnChannelsMessagesPerSecond: bW.median,
          overBrokerAloneOnChannels: ratio(tO.median, bW.median),
          brokerAloneSameShapeMessagesPerSecond: bX.median,
          overBrokerAloneSameShape: ratio(tO.median, bX.median),
          brokerAloneOnChannelsCpuMicrosPerMessage: cW,
          brokerAloneSameShapeCpuMicrosPerMessage: cX,
          brokerAloneSameMessagesCpuMicrosPerMessage: cS,
        },
      };
    } finally {
      await q.delete();
      await db.drop();
    }
  },
};

// `--only=ordering`: what an ordered stream costs, from the outbox to the consumer's effect. The same events
// (about 300 B of JSON, 100 aggregates) go through orderflow's relay with its defaults to a scratch queue,
// and a consumer applies each in a transaction of its own: the inbox claim, the stream's turn for ordered
// events (inbox_sequence), and an upsert of the aggregate's level. Ordered and unordered alternate in one
// run, on the same stack:
//   - throughput: a backlog burnt down, from the relay's start to the last effect committed;
//   - latency: events written one per transaction at a fixed rate (open model), from the writer's commit
//     to the consumer's.
import { HEADERS } from "@orderflow/contracts";
import { pgTransaction, type SqlTx } from "@orderflow/db";
import { amqpUrls } from "@orderflow/infra";
import { claimInbox, INBOX_MIGRATIONS_DIR, takeTurnInbox } from "@orderflow/messaging";
import { insertOutboxRows, OUTBOX_MIGRATIONS_DIR, outboxRow, withOutbox } from "@orderflow/outbox";
import type { ConsumeMessage } from "amqplib";
import { createOrderflowRelay } from "./orderflow-relay.ts";
import { dueBy, intendedAtMs } from "./pacing.ts";
import { createScratchDb, type ScratchDb } from "./scratch-db.ts";
import { createScratchQueue, type ScratchQueue } from "./scratch-queue.ts";
import { fmt, fmtSpread, type Section, type SectionContext, type SectionResult, sleep } from "./section.ts";
import { type Latency, latency, ratio, spread } from "./stats.ts";

const AGGREGATES = 100;
type Mode = "ordered" | "unordered";

const LEVELS_DDL = `CREATE TABLE IF NOT EXISTS bench_levels (
  aggregate_id text PRIMARY KEY, level bigint NOT NULL, applied int NOT NULL DEFAULT 1)`;

/** Event `i` of a run: each run has aggregates of its own, so each stream starts at sequence 1. */
function eventOf(routingKey: string, run: string, i: number, ordered: boolean) {
  const aggregateId = `sku-${run}-${i % AGGREGATES}`;
  return {
    eventType: routingKey,
    aggregateType: "stock",
    aggregateId,
    ordered,
    payload: {
      sku: aggregateId,
      level: i,
      reason: "bench",
      orderId: crypto.randomUUID(),
      lines: [{ sku: aggregateId, quantity: 2, unitPrice: 999 }],
      changedAt: new Date().toISOString(),
    },
  };
}

interface Applier {
  /** Commit time of each applied message id (ms, performance.now()). */
  appliedAt: Map<string, number>;
  /** Deliveries that came before their turn and went back to the queue. */
  early: number;
  stop(): Promise<void>;
}

/**
 * The consumer: one transaction per delivery, chained per aggregate (as the services' intake lanes do),
 * acked after the commit. An early one (it never is, with the relay's one-at-a-time) is requeued.
 */
async function startApplier(db: ScratchDb, q: ScratchQueue, consumer: string): Promise<Applier> {
  const appliedAt = new Map<string, number>();
  const lanes = new Map<string, Promise<void>>();
  const state = { early: 0 };
  const apply = async (msg: ConsumeMessage): Promise<boolean> => {
    const id = String(msg.properties.messageId);
    const h = (msg.properties.headers ?? {}) as Record<string, unknown>;
    const aggregate = String(h[HEADERS.aggregateId]);
    const key = h[HEADERS.orderingKey];
    return pgTransaction(db.pool, async (tx: SqlTx) => {
      if (!(await claimInbox(tx, consumer, id, String(msg.properties.type)))) return true;
      if (typeof key === "string") {
        const turn = await takeTurnInbox(tx, consumer, key, Number(h[HEADERS.sequence]));
        if (turn === "early") throw new Error("early");
        if (turn === "copy") return true;
      }
      await tx.$executeRawUnsafe(
        `INSERT INTO bench_levels (aggregate_id, level) VALUES ($1, $2)
         ON CONFLICT (aggregate_id) DO UPDATE SET level = EXCLUDED.level, applied = bench_levels.applied + 1`,
        aggregate,
        Number(JSON.parse(msg.content.toString("utf8")).level),
      );
      return true;
    }).then(
      () => {
        appliedAt.set(id, performance.now());
        return true;
      },
      () => false,
    );
  };
  // The scratch queue acks each delivery as it hands it over. Its lane keeps the delivery order, and a
  // delivery that is not its turn yet is tried again in place (counted as early).
  const stop = await q.consume((msg) => {
    const aggregate = String(msg.properties.headers?.[HEADERS.aggregateId]);
    const prev = lanes.get(aggregate) ?? Promise.resolve();
    const next = prev.then(async () => {
      for (let tries = 0; tries < 50; tries++) {
        if (await apply(msg)) return;
        state.early += 1;
        await sleep(20);
      }
    });
    lanes.set(aggregate, next);
  });
  return {
    appliedAt,
    get early() {
      return state.early;
    },
    stop,
  };
}

async function waitApplied(a: Applier, ids: readonly string[], timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (ids.every((id) => a.appliedAt.has(id))) return;
    await sleep(20);
  }
  const missing = ids.filter((id) => !a.appliedAt.has(id)).length;
  throw new Error(`${missing} of ${ids.length} events not applied within ${timeoutMs / 1000} s`);
}

/** A backlog of `n` events written first, then burnt down by a fresh relay; events per second. */
async function burnDown(ctx: SectionContext, db: ScratchDb, q: ScratchQueue, mode: Mode, n: number) {
  const ids: string[] = [];
  const run = crypto.randomUUID().slice(0, 8);
  for (let i = 0; i < n; i += 500) {
    const rows = Array.from({ length: Math.min(500, n - i) }, (_, j) =>
      outboxRow(eventOf(q.routingKey, run, i + j, mode === "ordered")),
    );
    await pgTransaction(db.pool, (tx) => insertOutboxRows(tx, rows));
    ids.push(...rows.map((r) => r.messageId));
  }
  const applier = await startApplier(db, q, `bench-${mode}-${crypto.randomUUID().slice(0, 8)}`);
  const relay = createOrderflowRelay({ pool: db.pool, amqpUrls: amqpUrls(ctx.stack, "order") });
  const t0 = performance.now();
  await relay.start();
  try {
    await waitApplied(applier, ids, 300_000);
  } finally {
    await relay.stop();
    await applier.stop();
  }
  const last = Math.max(...ids.map((id) => applier.appliedAt.get(id) as number));
  return { eventsPerSecond: n / ((last - t0) / 1000), early: applier.early };
}

/** Events written one per transaction at `rate` for `seconds`; commit-to-effect latency. */
async function latencyRun(
  ctx: SectionContext,
  db: ScratchDb,
  q: ScratchQueue,
  mode: Mode,
  rate: number,
  seconds: number,
): Promise<{ latency: Latency; early: number }> {
  const applier = await startApplier(db, q, `bench-${mode}-${crypto.randomUUID().slice(0, 8)}`);
  const relay = createOrderflowRelay({ pool: db.pool, amqpUrls: amqpUrls(ctx.stack, "order") });
  await relay.start();
  const committedAt = new Map<string, number>();
  const run = crypto.randomUUID().slice(0, 8);
  const total = Math.round(rate * seconds);
  const writes: Promise<void>[] = [];
  try {
    const t0 = performance.now();
    let sent = 0;
    while (sent < total) {
      const due = dueBy(performance.now() - t0, rate, total);
      for (; sent < due; sent++) {
        const event = eventOf(q.routingKey, run, sent, mode === "ordered");
        writes.push(
          withOutbox(
            (fn) => pgTransaction(db.pool, fn),
            (committed) => {
              for (const id of committed) committedAt.set(id, performance.now());
              relay.afterCommit(committed);
            },
            async (_tx, enqueue) => void (await enqueue(event)),
          ),
        );
      }
      if (sent < total) await sleep(intendedAtMs(sent, rate) - (performance.now() - t0));
    }
    await Promise.all(writes);
    await waitApplied(applier, [...committedAt.keys()], 120_000);
  } finally {
    await relay.stop();
    await applier.stop();
  }
  const ms = [...committedAt].map(([id, at]) => (applier.appliedAt.get(id) as number) - at);
  return { latency: latency(ms), early: applier.early };
}

export const orderingSection: Section = {
  name: "ordering",
  async run(ctx): Promise<SectionResult> {
    const repeats = ctx.quick ? 1 : 3;
    const backlog = ctx.quick ? 3_000 : 10_000;
    const plan = ctx.quick ? { rate: 200, seconds: 5 } : { rate: 200, seconds: 15 };
    const db = await createScratchDb(
      ctx.stack,
      "ordering",
      [OUTBOX_MIGRATIONS_DIR, INBOX_MIGRATIONS_DIR],
      10,
    );
    await db.pool.query(LEVELS_DDL);
    const q = await createScratchQueue(ctx.stack, "ordering");
    const tput: Record<Mode, number[]> = { ordered: [], unordered: [] };
    const p99: Record<Mode, number[]> = { ordered: [], unordered: [] };
    const p50: Record<Mode, number[]> = { ordered: [], unordered: [] };
    const early: Record<Mode, number> = { ordered: 0, unordered: 0 };
    try {
      for (let i = 0; i < repeats; i++) {
        // Alternating, so a busier moment of the machine does not fall on one mode only.
        for (const mode of (i % 2 === 0 ? ["ordered", "unordered"] : ["unordered", "ordered"]) as Mode[]) {
          const b = await burnDown(ctx, db, q, mode, backlog);
          tput[mode].push(b.eventsPerSecond);
          early[mode] += b.early;
          ctx.log(`  ${mode} burn-down #${i + 1}: ${fmt(b.eventsPerSecond)} events/s (${backlog} events)`);
          const l = await latencyRun(ctx, db, q, mode, plan.rate, plan.seconds);
          p99[mode].push(l.latency.p99);
          p50[mode].push(l.latency.p50);
          early[mode] += l.early;
          ctx.log(
            `  ${mode} latency @${plan.rate}/s #${i + 1}: p50 ${fmt(l.latency.p50, 1)} ms p99 ${fmt(l.latency.p99, 1)} ms`,
          );
        }
      }
    } finally {
      await q.delete();
      await db.drop();
    }
    const s = {
      tO: spread(tput.ordered),
      tU: spread(tput.unordered),
      pO: spread(p99.ordered),
      pU: spread(p99.unordered),
      mO: spread(p50.ordered),
      mU: spread(p50.unordered),
    };
    return {
      title: "Ordered streams: what ordering costs, outbox to effect",
      rows: [
        {
          measure: `burn-down of ${fmt(backlog)} events over ${AGGREGATES} aggregates, ordered`,
          result: `${fmt(s.tO.median)} events/s`,
          spread: fmtSpread(s.tO),
          kind: "measured",
          note: `${fmt(ratio(s.tO.median, s.tU.median) * 100)}% of unordered; a key has one row in flight at a time`,
        },
        {
          measure: "the same, unordered",
          result: `${fmt(s.tU.median)} events/s`,
          spread: fmtSpread(s.tU),
          kind: "measured",
        },
        {
          measure: `commit to effect at ${plan.rate} events/s, ordered: p99 (p50)`,
          result: `${fmt(s.pO.median, 1)} ms (${fmt(s.mO.median, 1)} ms)`,
          spread: fmtSpread(s.pO, 1, " ms"),
          kind: "measured",
        },
        {
          measure: "the same, unordered: p99 (p50)",
          result: `${fmt(s.pU.median, 1)} ms (${fmt(s.mU.median, 1)} ms)`,
          spread: fmtSpread(s.pU, 1, " ms"),
          kind: "measured",
        },
      ],
      data: { backlog, aggregates: AGGREGATES, plan, repeats, throughput: tput, p99, p50, early },
      summary: {
        orderedEventsPerSecond: s.tO.median,
        unorderedEventsPerSecond: s.tU.median,
        orderedP99Ms: s.pO.median,
        unorderedP99Ms: s.pU.median,
      },
    };
  },
};

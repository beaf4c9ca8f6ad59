// What batching buys at each step, measured on the bench's host in the same run.
//  - consumer: inventory's reserve applied one message per transaction (as the consumer runs it today)
//    against N messages per transaction (inbox rows + handler effects of N messages, one commit), both
//    through Prisma as the service runs it, and both as raw pg;
//  - broker: each publish's confirm awaited before the next (the seed's way) against a window of 500.
//  The relay's own batching (one claim and one mark-sent per batch) is the relay section's ratio.
import { amqpUrls } from "@orderflow/infra";
import { publishWindowed } from "./ceilings.ts";
import { closedLoop } from "./closed-loop.ts";
import { createScratchDb } from "./scratch-db.ts";
import { createScratchQueue } from "./scratch-queue.ts";
import { fmt, fmtSpread, type Section, type SectionResult, type TableRow } from "./section.ts";
import { ratio, spread } from "./stats.ts";
import { inventoryShape, serviceMigrations } from "./tx-shapes.ts";

const BATCH = 20;

export const batchingSection: Section = {
  name: "batching",
  async run(ctx): Promise<SectionResult> {
    const messages = ctx.quick ? 300 : 600;
    const repeats = ctx.quick ? 2 : 3;
    const rows: TableRow[] = [];
    const data: Record<string, unknown> = { batch: BATCH, messages };
    const db = await createScratchDb(ctx.stack, "batching", [serviceMigrations("inventory")], 10);
    const prisma = inventoryShape.prisma(db.url, 10);
    try {
      await inventoryShape.seed(db.pool);
      // One message per tx runs as the consumer does today (several in flight); a batching consumer
      // would apply its batch alone, so batches run one at a time and also 4 at once.
      const modes: Record<string, { op: () => Promise<void>; perOp: number; concurrency: number }> = {
        "Prisma, 1 message per tx, 4 in flight": { op: prisma.run, perOp: 1, concurrency: 4 },
        [`Prisma, ${BATCH} messages per tx, 1 at a time`]: {
          op: () => prisma.runBatch(BATCH),
          perOp: BATCH,
          concurrency: 1,
        },
        "raw pg, 1 message per tx, 4 in flight": {
          op: inventoryShape.raw(db.pool),
          perOp: 1,
          concurrency: 4,
        },
        [`raw pg, ${BATCH} messages per tx, 1 at a time`]: {
          op: inventoryShape.rawBatch(db.pool, BATCH),
          perOp: BATCH,
          concurrency: 1,
        },
        [`raw pg, ${BATCH} messages per tx, set-based statements, 1 at a time`]: {
          op: inventoryShape.rawSetBatch(db.pool, BATCH),
          perOp: BATCH,
          concurrency: 1,
        },
      };
      const rates: Record<string, number[]> = {};
      for (const m of Object.values(modes))
        await closedLoop(m.op, { count: Math.ceil(40 / m.perOp) + 2, concurrency: m.concurrency });
      for (let i = 0; i < repeats; i++) {
        for (const [name, m] of Object.entries(modes)) {
          const r = await closedLoop(m.op, {
            count: Math.ceil(messages / m.perOp),
            concurrency: m.concurrency,
          });
          if (r.errors > 0) throw new Error(`${name}: ${r.errors} errors, first: ${r.firstError}`);
          const perSec = r.opsPerSec * m.perOp;
          rates[name] = [...(rates[name] ?? []), perSec];
          ctx.log(`  consumer ${name} #${i + 1}: ${fmt(perSec)} msg/s`);
        }
      }
      for (const [name, v] of Object.entries(rates))
        rows.push({
          measure: `inventory reserve, ${name}`,
          result: `${fmt(spread(v).median)} msg/s`,
          spread: fmtSpread(spread(v)),
          kind: "measured",
        });
      const pairs: [string, string, string][] = [
        ["Prisma", "Prisma, 1 message per tx, 4 in flight", `Prisma, ${BATCH} messages per tx, 1 at a time`],
        ["raw pg", "raw pg, 1 message per tx, 4 in flight", `raw pg, ${BATCH} messages per tx, 1 at a time`],
        [
          "raw pg set-based",
          "raw pg, 1 message per tx, 4 in flight",
          `raw pg, ${BATCH} messages per tx, set-based statements, 1 at a time`,
        ],
      ];
      for (const [lib, oneName, manyName] of pairs) {
        const one = rates[oneName] ?? [];
        const many = rates[manyName] ?? [];
        rows.push({
          measure: `${lib}: ${BATCH} messages per tx / 1 per tx`,
          result: `${fmt(ratio(spread(many).median, spread(one).median), 1)}x`,
          spread: fmtSpread(spread(many.map((x, i) => ratio(x, one[i] ?? Number.NaN))), 1, "x"),
          kind: "derived",
          note:
            lib === "Prisma"
              ? "a batch shares one commit; a failure in it would retry all its messages; batches lock their stock rows first, in order"
              : "",
        });
      }
      data.consumer = rates;
    } finally {
      await prisma.close().catch(() => {});
      await db.drop();
    }

    const q = await createScratchQueue(ctx.stack, "batching");
    const url = amqpUrls(ctx.stack, "order")[0] as string;
    const n1 = ctx.quick ? 200 : 500;
    const nW = ctx.quick ? 2_000 : 5_000;
    const broker: { one: number[]; window: number[] } = { one: [], window: [] };
    try {
      for (let i = 0; i < repeats; i++) {
        broker.one.push(await publishWindowed(url, q.routingKey, n1, 1));
        broker.window.push(await publishWindowed(url, q.routingKey, nW, 500));
        ctx.log(
          `  broker confirm each #${i + 1}: ${fmt(broker.one[i] ?? 0)} msg/s, window 500: ${fmt(broker.window[i] ?? 0)} msg/s`,
        );
        await q.purge();
      }
    } finally {
      await q.delete();
    }
    const b1 = spread(broker.one);
    const bw = spread(broker.window);
    rows.push(
      {
        measure: "broker: each confirm awaited before the next publish",
        result: `${fmt(b1.median)} msg/s`,
        spread: fmtSpread(b1),
        kind: "measured",
      },
      {
        measure: "broker: window of 500 unconfirmed publishes",
        result: `${fmt(bw.median)} msg/s`,
        spread: fmtSpread(bw),
        kind: "measured",
      },
      {
        measure: "broker: window 500 / confirm each",
        result: `${fmt(ratio(bw.median, b1.median), 1)}x`,
        spread: fmtSpread(spread(broker.window.map((x, i) => ratio(x, broker.one[i] ?? Number.NaN))), 1, "x"),
        kind: "derived",
      },
    );
    data.broker = broker;
    return { title: "What batching buys", rows, data };
  },
};

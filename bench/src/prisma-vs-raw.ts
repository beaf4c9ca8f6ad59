// Each service's hot write transaction through Prisma's interactive transaction against the
// same statements over pg BEGIN/COMMIT, same database, same pool size, same concurrency, alternating.
import { closedLoop } from "./closed-loop.ts";
import { cpuSeconds, postgresRoots } from "./cpu.ts";
import { createScratchDb } from "./scratch-db.ts";
import { fmt, fmtSpread, type Section, type SectionResult, type TableRow } from "./section.ts";
import { ratio, spread } from "./stats.ts";
import { serviceMigrations, TX_SHAPES } from "./tx-shapes.ts";

const POOL = 10;
const CONCURRENCY = 8;

export const prismaSection: Section = {
  name: "prisma",
  async run(ctx): Promise<SectionResult> {
    const count = ctx.quick ? 150 : 600;
    const maxMs = ctx.quick ? 2_500 : 5_000;
    const repeats = ctx.quick ? 2 : 3;
    const rows: TableRow[] = [];
    const data: Record<string, unknown> = { count, repeats, pool: POOL, concurrency: CONCURRENCY };
    for (const shape of TX_SHAPES) {
      const db = await createScratchDb(
        ctx.stack,
        `tx_${shape.service}`,
        [serviceMigrations(shape.service)],
        POOL,
      );
      const prisma = shape.prisma(db.url, POOL);
      try {
        await shape.seed(db.pool);
        const raw = shape.raw(db.pool);
        // Warm both paths (connections, JIT, Prisma's query plans) before timing.
        await closedLoop(prisma.run, { count: 50, concurrency: CONCURRENCY });
        await closedLoop(raw, { count: 50, concurrency: CONCURRENCY });
        const runs: { prisma: number[]; raw: number[] } = { prisma: [], raw: [] };
        // CPU per transaction, client side (this process: Prisma's engine and adapter, or pg) and server
        // side (the PostgreSQL tree): unlike tx/s, CPU does not depend on what the neighbours are doing.
        const cpu = { prisma: { client: 0, server: 0, tx: 0 }, raw: { client: 0, server: 0, tx: 0 } };
        const pgRoots = postgresRoots(ctx);
        for (let i = 0; i < repeats; i++) {
          const order = i % 2 === 0 ? (["prisma", "raw"] as const) : (["raw", "prisma"] as const);
          for (const mode of order) {
            const clientBefore = process.cpuUsage();
            const serverBefore = cpuSeconds({ pg: pgRoots }).pg ?? 0;
            const r = await closedLoop(mode === "prisma" ? prisma.run : raw, {
              count,
              concurrency: CONCURRENCY,
              maxMs,
            });
            const client = process.cpuUsage(clientBefore);
            cpu[mode].client += (client.user + client.system) / 1_000;
            cpu[mode].server += ((cpuSeconds({ pg: pgRoots }).pg ?? 0) - serverBefore) * 1_000;
            cpu[mode].tx += r.ops;
            if (r.errors > 0)
              throw new Error(`${shape.service} ${mode}: ${r.errors} errors, first: ${r.firstError}`);
            runs[mode].push(r.opsPerSec);
            ctx.log(
              `  ${shape.service} ${mode} #${i + 1}: ${fmt(r.opsPerSec)} tx/s (p50 ${fmt(r.latencyMs.p50, 1)} ms)`,
            );
          }
        }
        const p = spread(runs.prisma);
        const r = spread(runs.raw);
        const ratios = runs.raw.map((x, i) => ratio(x, runs.prisma[i] ?? Number.NaN));
        rows.push({
          measure: `${shape.service}: ${shape.writes}; Prisma / raw pg`,
          result: `${fmt(p.median)} / ${fmt(r.median)} tx/s`,
          spread: `${fmtSpread(p)} / ${fmtSpread(r)}`,
          kind: "measured",
        });
        rows.push({
          measure: `${shape.service}: raw pg / Prisma`,
          result: `${fmt(ratio(r.median, p.median), 2)}x`,
          spread: fmtSpread(spread(ratios), 2, "x"),
          kind: "derived",
        });
        const per = (m: "prisma" | "raw", k: "client" | "server") => cpu[m][k] / Math.max(1, cpu[m].tx);
        rows.push({
          measure: `${shape.service}: CPU per transaction, Prisma / raw pg (client + PostgreSQL)`,
          result: `${fmt(per("prisma", "client") + per("prisma", "server"), 2)} / ${fmt(per("raw", "client") + per("raw", "server"), 2)} ms`,
          spread: `client ${fmt(per("prisma", "client"), 2)} / ${fmt(per("raw", "client"), 2)} ms; PostgreSQL ${fmt(per("prisma", "server"), 2)} / ${fmt(per("raw", "server"), 2)} ms`,
          kind: "measured",
          note: "all repeats pooled; client = this process, PostgreSQL = its process tree",
        });
        data[shape.service] = {
          ...runs,
          cpuMsPerTx: {
            prisma: { client: per("prisma", "client"), server: per("prisma", "server") },
            raw: { client: per("raw", "client"), server: per("raw", "server") },
          },
        };
      } finally {
        await prisma.close().catch(() => {});
        await db.drop();
      }
    }
    return {
      title: `Prisma against raw SQL on each service's hot write path (pool ${POOL}, ${CONCURRENCY} concurrent)`,
      rows,
      data,
    };
  },
};

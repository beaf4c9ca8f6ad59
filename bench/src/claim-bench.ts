// Priority 2: the relay's claim as history grows. The claim reads the partial index of pending rows
// (status = 0), so done rows in the outbox and rows in outbox_archive should not change its cost.
// Each level adds history (done rows in outbox + rows in outbox_archive) with one INSERT ... SELECT
// generate_series, then times the relay's own claim statement (claimDue, 100 rows out of a backlog of
// 1,000 due rows) inside BEGIN ... ROLLBACK so every iteration sees the same backlog.
import { OUTBOX_MIGRATIONS_DIR } from "@orderflow/outbox";
import pg from "pg";
// The relay's own statement, not a copy of it (the package exports only what services use).
import { claimDue } from "../../packages/outbox/src/sql/claim-due.ts";
import { insertHistory, insertPending } from "./outbox-rows.ts";
import { createScratchDb } from "./scratch-db.ts";
import { fmt, type Section, type SectionResult, type TableRow } from "./section.ts";
import { latency, ratio } from "./stats.ts";

export const claimSection: Section = {
  name: "claim",
  async run(ctx): Promise<SectionResult> {
    const levels = ctx.quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
    const iterations = ctx.quick ? 100 : 300;
    const db = await createScratchDb(ctx.stack, "claim", [OUTBOX_MIGRATIONS_DIR], 2);
    // One connection, so BEGIN / claim / ROLLBACK run on the same session.
    const one = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      await insertPending(db.pool, 1_000, "bench.claim");
      const results: { history: number; loadSeconds: number; latencyMs: ReturnType<typeof latency> }[] = [];
      let loaded = 0;
      for (const level of levels) {
        const t = performance.now();
        const add = level - loaded;
        await insertHistory(db.pool, "outbox", add);
        await insertHistory(db.pool, "outbox_archive", add);
        await db.pool.query("VACUUM ANALYZE outbox");
        await db.pool.query("VACUUM ANALYZE outbox_archive");
        loaded = level;
        const loadSeconds = (performance.now() - t) / 1000;
        const samples: number[] = [];
        for (let i = 0; i < iterations + 10; i++) {
          await one.query("BEGIN");
          const s = performance.now();
          const rows = await claimDue(one, 100, 30_000);
          const ms = performance.now() - s;
          await one.query("ROLLBACK");
          if (rows.length !== 100) throw new Error(`claim returned ${rows.length} rows, expected 100`);
          if (i >= 10) samples.push(ms); // the first few warm the cache and the plan
        }
        const l = latency(samples);
        ctx.log(
          `  history ${fmt(level)} done + ${fmt(level)} archived (loaded in ${fmt(loadSeconds, 1)} s): claim p50 ${fmt(l.p50, 2)} ms p99 ${fmt(l.p99, 2)} ms`,
        );
        results.push({ history: level, loadSeconds, latencyMs: l });
      }
      const plan = await one.query(
        "EXPLAIN (FORMAT TEXT) SELECT id FROM outbox WHERE status = 0 AND next_attempt_at <= now() ORDER BY next_attempt_at, id LIMIT 100 FOR UPDATE SKIP LOCKED",
      );
      const first = results[0];
      const last = results[results.length - 1];
      const rows: TableRow[] = results.map((r) => ({
        measure: `claim 100 of 1,000 due rows, history ${fmt(r.history)} done + ${fmt(r.history)} archived`,
        result: `p50 ${fmt(r.latencyMs.p50, 2)} ms`,
        spread: `p90 ${fmt(r.latencyMs.p90, 2)}, p99 ${fmt(r.latencyMs.p99, 2)}, max ${fmt(r.latencyMs.max, 2)} ms (n=${r.latencyMs.n})`,
        kind: "measured",
      }));
      if (first && last && results.length > 1)
        rows.push({
          measure: `claim p50 at ${fmt(last.history)} / at ${fmt(first.history)} history rows (flat = 1.0x)`,
          result: `${fmt(ratio(last.latencyMs.p50, first.latencyMs.p50), 2)}x`,
          spread: `p99 ${fmt(ratio(last.latencyMs.p99, first.latencyMs.p99), 2)}x`,
          kind: "derived",
          note: "the claim reads the partial index outbox_pending_due_idx (status = 0)",
        });
      return {
        title: "Claim cost as history grows",
        rows,
        data: { iterations, results, plan: plan.rows.map((r) => r["QUERY PLAN"]) },
      };
    } finally {
      await one.end().catch(() => {});
      await db.drop();
    }
  },
};

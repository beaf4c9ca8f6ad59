// What one sweep claim costs on this database, in buffer pages (shared hit + read, from EXPLAIN ANALYZE
// BUFFERS): unlike its wall time, this does not move with the neighbours' load. The statement is the
// relay's own, captured by handing claimDue a pool that records the query instead of running it. It runs
// inside BEGIN ... ROLLBACK on one client of the pool, so it claims nothing for real.
import type pg from "pg";
import { claimDue } from "./claim-due.ts";

export async function claimPagesProbe(pool: pg.Pool, limit = 100): Promise<number> {
  let sql = "";
  let params: unknown[] = [];
  const recorder = {
    // claimDue passes a query config (its statement is prepared by name); the text alone is explained.
    query: async (q: pg.QueryConfig) => {
      sql = q.text;
      params = q.values ?? [];
      return { rows: [] };
    },
  } as unknown as pg.Pool;
  await claimDue(recorder, limit, 30_000);
  const one = await pool.connect();
  await one.query("BEGIN");
  try {
    const r = await one.query<{ "QUERY PLAN": { Plan: Record<string, number> }[] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
      params,
    );
    const plan = r.rows[0]?.["QUERY PLAN"][0]?.Plan;
    return (plan?.["Shared Hit Blocks"] ?? 0) + (plan?.["Shared Read Blocks"] ?? 0);
  } finally {
    await one.query("ROLLBACK").catch(() => {});
    one.release();
  }
}

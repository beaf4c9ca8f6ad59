// The half-rate run measures the saga running at that rate, not the stack cleaning up after the ladder.
// The ladder's last steps (the one that fell behind among them) leave every table of the three service
// databases past autovacuum's thresholds, and autovacuum then vacuums and analyses all of them inside the
// half-rate run's 30 s: the maintenance of the ladder's tens of thousands of orders charged to the few
// thousand of the half-rate run (measured: every table vacuumed and analysed inside the run;
// a 150/s ladder step had a p99 of 271 ms, the half-rate run at the same 150/s 668 ms). So the bench does
// that maintenance first, as the admin: VACUUM (ANALYZE) of each service database, then a CHECKPOINT, as
// the claim section does before it times anything. Autovacuum keeps running meanwhile; what it does
// during the run is counted (`autovacuumRuns`) and reported beside the figures.
import { adminUrl, databaseName, SERVICE_NAMES, type Stack } from "@orderflow/infra";
import pg from "pg";

const SETTLE_TIMEOUT_MS = 180_000;

async function withAdmin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url, statement_timeout: SETTLE_TIMEOUT_MS });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Runs `fn` as the admin in each service database, one after the other; its results in SERVICE_NAMES order. */
export const eachDatabase = async <T>(stack: Stack, fn: (c: pg.Client) => Promise<T>): Promise<T[]> => {
  const out: T[] = [];
  for (const s of SERVICE_NAMES) out.push(await withAdmin(adminUrl(stack.pg, databaseName(s)), fn));
  return out;
};

/** VACUUM (ANALYZE) of the three service databases, then a CHECKPOINT; resolves to the seconds it took. */
export async function settleDatabases(stack: Stack): Promise<number> {
  const t0 = performance.now();
  await eachDatabase(stack, (c) => c.query("VACUUM (ANALYZE)"));
  await withAdmin(adminUrl(stack.pg), (c) => c.query("CHECKPOINT"));
  return (performance.now() - t0) / 1000;
}

/** How many autovacuum and autoanalyze runs the three service databases have counted so far. */
export async function autovacuumRuns(stack: Stack): Promise<number> {
  const counts = await eachDatabase(stack, async (c) => {
    const r = await c.query<{ n: number }>(
      "SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0)::int AS n FROM pg_stat_user_tables",
    );
    return r.rows[0]?.n ?? 0;
  });
  return counts.reduce((a, b) => a + b, 0);
}

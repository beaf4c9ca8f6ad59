// Scratch databases: created as the admin, migrated with the real migrations, dropped afterwards
// (also when a section fails), so a run leaves nothing behind in the stack.
import { randomUUID } from "node:crypto";
import { applyMigrations } from "@orderflow/db";
import { adminUrl, type Stack } from "@orderflow/infra";
import pg from "pg";

export interface ScratchDb {
  name: string;
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

export const SCRATCH_PREFIX = "bench_";

async function admin<T>(stack: Stack, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl(stack.pg) });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

export async function createScratchDb(
  stack: Stack,
  label: string,
  migrationsDirs: string[],
  poolMax = 10,
): Promise<ScratchDb> {
  const name = `${SCRATCH_PREFIX}${label}_${randomUUID().replaceAll("-", "").slice(0, 10)}`;
  await admin(stack, (c) => c.query(`CREATE DATABASE "${name}"`));
  const url = adminUrl(stack.pg, name);
  await applyMigrations({ databaseUrl: url, migrationsDirs });
  const pool = new pg.Pool({ connectionString: url, max: poolMax });
  pool.on("error", () => {}); // a dropped database kills idle clients; nothing to do about it
  let dropped = false;
  return {
    name,
    url,
    pool,
    async drop() {
      if (dropped) return;
      dropped = true;
      await pool.end().catch(() => {});
      await admin(stack, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** Drops scratch databases a crashed earlier run left behind. */
export async function dropLeftoverScratchDbs(stack: Stack): Promise<string[]> {
  return await admin(stack, async (c) => {
    const r = await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE $1", [
      `${SCRATCH_PREFIX}%`,
    ]);
    for (const { datname } of r.rows) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    return r.rows.map((x) => x.datname);
  });
}

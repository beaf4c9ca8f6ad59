// A fresh database per test file: created with the admin URL, the inbox migration applied from its
// migration.sql (the same file Prisma would apply), plus a small `effects` table standing in for a
// service's business effect. Dropped afterwards.
import fs from "node:fs";
import path from "node:path";
import { pgTransaction, type RunTransaction, type SqlTx } from "@orderflow/db";
import { adminUrl, type Stack } from "@orderflow/infra";
import pg from "pg";
import { INBOX_MIGRATIONS_DIR as MIGRATIONS } from "../../src/index.ts";

export interface TestDatabase {
  name: string;
  url: string;
  pool: pg.Pool;
  transaction: RunTransaction<SqlTx>;
  effects(): Promise<{ message_id: string; order_id: string; consumer: string; at: Date }[]>;
  drop(): Promise<void>;
}

export const recordEffect = (tx: SqlTx, consumer: string, messageId: string, orderId: string) =>
  tx.$executeRawUnsafe(
    "INSERT INTO effects (consumer, message_id, order_id) VALUES ($1, $2, $3)",
    consumer,
    messageId,
    orderId,
  );

export async function createTestDatabase(s: Stack, label: string): Promise<TestDatabase> {
  const name = `msgtest_${label.replace(/\W/g, "_")}_${process.pid}_${Date.now() % 1e6}`;
  const admin = new pg.Client({ connectionString: adminUrl(s.pg) });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = adminUrl(s.pg, name);
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  for (const dir of fs.readdirSync(MIGRATIONS).sort()) {
    await pool.query(fs.readFileSync(path.join(MIGRATIONS, dir, "migration.sql"), "utf8"));
  }
  await pool.query(`CREATE TABLE effects (
    id bigserial PRIMARY KEY, consumer text NOT NULL, message_id text NOT NULL, order_id text NOT NULL,
    at timestamptz NOT NULL DEFAULT clock_timestamp())`);
  return {
    name,
    url,
    pool,
    transaction: (fn) => pgTransaction(pool, fn),
    effects: async () => (await pool.query("SELECT * FROM effects ORDER BY id")).rows,
    async drop() {
      // A handler still blocked in a transaction would keep pool.end() waiting: bound it, then force.
      await Promise.race([pool.end().catch(() => {}), new Promise((r) => setTimeout(r, 5_000).unref())]);
      const c = new pg.Client({ connectionString: adminUrl(s.pg) });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

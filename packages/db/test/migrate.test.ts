import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { adminUrl, openStack } from "@orderflow/infra";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations } from "../src/index.ts";

const stack = openStack();
const dbName = `migrate_test_${process.pid}_${Date.now()}`;
const url = adminUrl(stack.pg, dbName);
let dir: string;

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: adminUrl(stack.pg) });
  await c.connect();
  await c.query(sql);
  await c.end();
}

function writeMigration(name: string, sql: string) {
  fs.mkdirSync(path.join(dir, name), { recursive: true });
  fs.writeFileSync(path.join(dir, name, "migration.sql"), sql);
}

beforeAll(async () => {
  await admin(`CREATE DATABASE "${dbName}"`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "migrations-"));
  fs.writeFileSync(path.join(dir, "migration_lock.toml"), 'provider = "postgresql"\n');
});
afterAll(async () => {
  await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("applyMigrations (offline, Prisma folder format)", () => {
  it("applies migrations in folder order and records them in Prisma's _prisma_migrations with sha256 checksums", async () => {
    writeMigration("20260101000000_b", "CREATE TABLE b (id int REFERENCES a(id));");
    writeMigration("20250101000000_a", "CREATE TABLE a (id int PRIMARY KEY);");
    const r = await applyMigrations({ databaseUrl: url, migrationsDirs: [dir] });
    expect(r.applied).toEqual(["20250101000000_a", "20260101000000_b"]);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const rows = await c.query(
      `SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count, logs
         FROM _prisma_migrations ORDER BY started_at, migration_name`,
    );
    await c.end();
    const sha = (s: string) => createHash("sha256").update(s).digest("hex");
    expect(rows.rows).toEqual([
      expect.objectContaining({
        migration_name: "20250101000000_a",
        checksum: sha("CREATE TABLE a (id int PRIMARY KEY);"),
        rolled_back_at: null,
        applied_steps_count: 1,
        logs: null,
      }),
      expect.objectContaining({ migration_name: "20260101000000_b" }),
    ]);
    expect(rows.rows.every((x) => x.finished_at instanceof Date)).toBe(true);
  });

  it("is idempotent and safe to run concurrently: a second and third run apply nothing", async () => {
    writeMigration("20270101000000_c", "CREATE TABLE c (id int);");
    const [one, two] = await Promise.all([
      applyMigrations({ databaseUrl: url, migrationsDirs: [dir] }),
      applyMigrations({ databaseUrl: url, migrationsDirs: [dir] }),
    ]);
    expect([...one.applied, ...two.applied]).toEqual(["20270101000000_c"]);
    const again = await applyMigrations({ databaseUrl: url, migrationsDirs: [dir] });
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toHaveLength(3);
  });

  it("a failing migration rolls back entirely and is not recorded", async () => {
    writeMigration("20280101000000_bad", "CREATE TABLE d (id int); SELECT * FROM no_such_table;");
    await expect(applyMigrations({ databaseUrl: url, migrationsDirs: [dir] })).rejects.toThrow(
      /20280101000000_bad/,
    );
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const d = await c.query("SELECT to_regclass('d') AS t");
    const rec = await c.query("SELECT 1 FROM _prisma_migrations WHERE migration_name = '20280101000000_bad'");
    await c.end();
    expect(d.rows[0].t).toBeNull();
    expect(rec.rowCount).toBe(0);
    fs.rmSync(path.join(dir, "20280101000000_bad"), { recursive: true });
  });

  it("reports an applied migration whose file changed since", async () => {
    fs.appendFileSync(path.join(dir, "20270101000000_c", "migration.sql"), "\n-- edited\n");
    const r = await applyMigrations({ databaseUrl: url, migrationsDirs: [dir] });
    expect(r.modified).toEqual(["20270101000000_c"]);
  });
});

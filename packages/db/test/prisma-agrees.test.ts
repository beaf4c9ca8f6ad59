import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { adminUrl, openStack } from "@orderflow/infra";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migrationList, noFilters, openPrismaEngine } from "../schema-tools/schema-engine.ts";
import { applyMigrations } from "../src/index.ts";

const stack = openStack();
// A whole service folder: its own migrations interleaved with the copies of the outbox and inbox ones.
const ORDER_MIGRATIONS = path.join(
  new URL("../../../services/order/prisma/migrations", import.meta.url).pathname,
);
const NAMES = fs
  .readdirSync(ORDER_MIGRATIONS)
  .filter((d) => /^\d{14}_/.test(d))
  .sort();
const created: string[] = [];

async function freshDb(): Promise<string> {
  const name = `prisma_agrees_${randomUUID().replaceAll("-", "").slice(0, 10)}`;
  const c = new pg.Client({ connectionString: adminUrl(stack.pg) });
  await c.connect();
  await c.query(`CREATE DATABASE "${name}"`);
  await c.end();
  created.push(name);
  return adminUrl(stack.pg, name);
}

afterAll(async () => {
  const c = new pg.Client({ connectionString: adminUrl(stack.pg) });
  await c.connect();
  for (const name of created) await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await c.end();
});

describe("our offline runner and Prisma's schema engine share one migration history", () => {
  it("after applyMigrations, Prisma's engine sees every migration applied, none edited, and applies nothing", async () => {
    const url = await freshDb();
    const ours = await applyMigrations({ databaseUrl: url, migrationsDirs: [ORDER_MIGRATIONS] });
    expect(ours.applied).toEqual(NAMES);
    expect(NAMES.length).toBeGreaterThan(4);
    const engine = await openPrismaEngine(url);
    const migrationsList = migrationList(ORDER_MIGRATIONS);
    const diagnosis = await engine.diagnoseMigrationHistory({
      migrationsList,
      optInToShadowDatabase: false,
      filters: noFilters,
    });
    expect(diagnosis).toMatchObject({
      editedMigrationNames: [],
      failedMigrationNames: [],
      hasMigrationsTable: true,
      history: null,
    });
    const theirs = await engine.applyMigrations({ migrationsList, filters: noFilters });
    await engine.close();
    expect(theirs.appliedMigrationNames).toEqual([]);
  });

  it("after Prisma's engine applied the migrations, our runner sees them applied and unmodified", async () => {
    const url = await freshDb();
    const engine = await openPrismaEngine(url);
    const theirs = await engine.applyMigrations({
      migrationsList: migrationList(ORDER_MIGRATIONS),
      filters: noFilters,
    });
    await engine.close();
    expect(theirs.appliedMigrationNames).toEqual(NAMES);
    const ours = await applyMigrations({ databaseUrl: url, migrationsDirs: [ORDER_MIGRATIONS] });
    expect(ours).toEqual({ applied: [], alreadyApplied: NAMES, modified: [] });
  });
});

import { randomUUID } from "node:crypto";
import path from "node:path";
import { adminUrl, openStack } from "@orderflow/infra";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { applyMigrations } from "../src/index.ts";
import { migrationList, noFilters, openPrismaEngine } from "./prisma-schema-engine.ts";

const stack = openStack();
const OUTBOX_MIGRATIONS = path.join(new URL("../../outbox/prisma/migrations", import.meta.url).pathname);
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
    const ours = await applyMigrations({ databaseUrl: url, migrationsDirs: [OUTBOX_MIGRATIONS] });
    expect(ours.applied).toEqual(["20261130000000_outbox"]);
    const engine = await openPrismaEngine(url);
    const migrationsList = migrationList(OUTBOX_MIGRATIONS);
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
    expect(theirs.appliedMigrationNames).toEqual([]);
  });

  it("after Prisma's engine applied the migrations, our runner sees them applied and unmodified", async () => {
    const url = await freshDb();
    const engine = await openPrismaEngine(url);
    const theirs = await engine.applyMigrations({
      migrationsList: migrationList(OUTBOX_MIGRATIONS),
      filters: noFilters,
    });
    expect(theirs.appliedMigrationNames).toEqual(["20261130000000_outbox"]);
    const ours = await applyMigrations({ databaseUrl: url, migrationsDirs: [OUTBOX_MIGRATIONS] });
    expect(ours).toEqual({ applied: [], alreadyApplied: ["20261130000000_outbox"], modified: [] });
  });
});

// `pnpm db:new` and `pnpm db:check` as a user runs them, against the local stack's PostgreSQL (scratch
// databases only). Schema changes are made on a copy of a service's prisma folder, never on the real one.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { repoRoot } from "@orderflow/infra";
import { migrationsDirOf } from "@orderflow/service-runtime";
import { afterEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const copies: string[] = [];

async function db(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run("pnpm", ["--silent", ...args], { cwd: repoRoot, timeout: 90_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const f = e as { code?: number; stdout?: string; stderr?: string };
    return { code: f.code ?? -1, stdout: f.stdout ?? "", stderr: f.stderr ?? "" };
  }
}

function copyOfOrderPrisma(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "order-prisma-"));
  copies.push(dir);
  fs.cpSync(path.join(repoRoot, "services/order/prisma"), dir, { recursive: true });
  return dir;
}

function edit(file: string, from: string, to: string) {
  const text = fs.readFileSync(file, "utf8");
  expect(text).toContain(from);
  fs.writeFileSync(file, text.replace(from, to));
}

const migrationsOf = (dir: string) =>
  fs.readdirSync(path.join(dir, "migrations")).filter((d) => /^\d{14}_/.test(d));

afterEach(() => {
  for (const d of copies.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("db:check and db:new", () => {
  it("db:check accepts every service: its migrations produce its schema and its shared copies match", async () => {
    const r = await db("db:check");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    for (const s of ["order", "inventory", "points"])
      expect(r.stdout).toContain(`${s}: migrations produce the schema`);
  });

  it("a model change without a migration fails db:check; db:new writes the migration, after which db:check passes", async () => {
    const dir = copyOfOrderPrisma();
    const before = migrationsOf(dir);
    edit(path.join(dir, "schema/schema.prisma"), "model Order {\n", "model Order {\n  note String?\n");

    const drifted = await db("db:check", "order", "--prisma-dir", dir);
    expect(drifted.code).toBe(1);
    expect(drifted.stderr).toContain('ADD COLUMN     "note" TEXT');

    const made = await db("db:new", "order", "add_order_note", "--prisma-dir", dir);
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    const added = migrationsOf(dir).filter((m) => !before.includes(m));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^\d{14}_add_order_note$/);
    expect((added[0] as string) > (before.at(-1) as string)).toBe(true);
    const sql = fs.readFileSync(path.join(dir, "migrations", added[0] as string, "migration.sql"), "utf8");
    expect(sql).toMatch(/ALTER TABLE "orders" ADD COLUMN\s+"note" TEXT;/);

    const accepted = await db("db:check", "order", "--prisma-dir", dir);
    expect(accepted.code).toBe(0);
    const again = await db("db:new", "order", "add_order_note_again", "--prisma-dir", dir);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("nothing to write");
    expect(migrationsOf(dir)).toHaveLength(before.length + 1);
  });

  it("db:check fails when a service's copy of the outbox models or of an outbox migration drifts from the package", async () => {
    const dir = copyOfOrderPrisma();
    edit(
      path.join(dir, "schema/outbox.prisma"),
      "model OutboxArchive {",
      "// edited here\nmodel OutboxArchive {",
    );
    fs.appendFileSync(path.join(dir, "migrations/20261130000000_outbox/migration.sql"), "\n-- edited\n");
    const r = await db("db:check", "order", "--prisma-dir", dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("outbox.prisma differs from");
    expect(r.stderr).toContain("20261130000000_outbox/migration.sql differs from");
  });

  it("bad arguments get a usage error naming what is wrong, and nothing is written", async () => {
    const dir = copyOfOrderPrisma();
    const before = migrationsOf(dir);
    const badName = await db("db:new", "order", "Add-Note", "--prisma-dir", dir);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('migration name "Add-Note"');
    const badService = await db("db:check", "shipping");
    expect(badService.code).toBe(2);
    expect(badService.stderr).toContain('unknown service "shipping"');
    expect(migrationsOf(dir)).toEqual(before);
  });
});

describe("Prisma's own CLI", () => {
  it.each(["order", "inventory", "points"])(
    "reads the %s service's prisma.config.ts: its schema folder validates, its migrations folder is the one the service applies",
    async (service) => {
      const cwd = path.join(repoRoot, "services", service);
      const r = await run("./node_modules/.bin/prisma", ["validate"], {
        cwd,
        timeout: 60_000,
        // The CLI looks for its native engine first; the stub stands in (validate does not use it).
        env: {
          PATH: process.env.PATH ?? "",
          PRISMA_SCHEMA_ENGINE_BINARY: path.join(repoRoot, "scripts/no-schema-engine.sh"),
        },
      });
      expect(`${r.stdout}${r.stderr}`).toContain("Prisma schema loaded from prisma/schema");
      expect(r.stdout).toContain("The schemas at prisma/schema are valid");
      const config = fs.readFileSync(path.join(cwd, "prisma.config.ts"), "utf8");
      expect(config).toContain('migrations: { path: "prisma/migrations" }');
      // The service finds its migrations from its own module's URL: the folder the config names.
      const composed = fs.readFileSync(path.join(cwd, "src/service.ts"), "utf8");
      expect(composed).toMatch(
        /defineService\("\w+", import\.meta\.url|migrationsDirOf\(import\.meta\.url\)/,
      );
      const applied = migrationsDirOf(pathToFileURL(path.join(cwd, "src/service.ts")).href);
      expect(applied).toBe(path.join(cwd, "prisma/migrations"));
    },
  );
});

describe("Prisma versions", () => {
  it("the CLI that generates the clients is the version of the client runtime that runs them", () => {
    const workspace = fs.readFileSync(path.join(repoRoot, "pnpm-workspace.yaml"), "utf8");
    const catalog = workspace.slice(workspace.indexOf("\ncatalog:"));
    const version = (name: string) => new RegExp(`^\\s+"?${name}"?: (\\S+)$`, "m").exec(catalog)?.[1];
    expect(version("@prisma/client")).toBeDefined();
    expect(version("prisma")).toBe(version("@prisma/client"));
  });
});

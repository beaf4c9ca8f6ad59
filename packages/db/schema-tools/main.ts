// `pnpm db:new <service> <name>` and `pnpm db:check [service...]`: Prisma Migrate's two everyday jobs,
// offline. Prisma's CLI needs a native engine downloaded at install time; this drives the same
// engine's WebAssembly build. Where the CLI works, `prisma migrate dev` reads the same folders.
import fs from "node:fs";
import path from "node:path";
import { exitWithUsage, parseCli } from "@orderflow/config";
import { openStack, repoRoot, SERVICE_NAMES, adminUrl as stackAdminUrl } from "@orderflow/infra";
import { readSchemaToolsEnv } from "./env.ts";
import { schemaDrift } from "./schema-drift.ts";
import { readServiceSchema, sharedCopyDrift } from "./service-schema.ts";

const USAGE = `usage:
  pnpm db:new <service> <migration_name> [--prisma-dir DIR]   write the migration a schema change needs
  pnpm db:check [service...] [--prisma-dir DIR]                fail when migrations do not produce the schema
services: ${SERVICE_NAMES.join(", ")}; --prisma-dir points one service at another prisma folder (a copy)`;

const MIGRATION_NAME = /^[a-z0-9]+(_[a-z0-9]+)*$/;
const PRISMA_DIR = { "prisma-dir": { type: "string" } } as const;

/** Stops with a usage error (exit 2) unless every name is a service. */
function requireServices(names: string[], fail: (m: string) => never): void {
  for (const s of names)
    if (!(SERVICE_NAMES as readonly string[]).includes(s))
      fail(`unknown service "${s}" (one of ${SERVICE_NAMES.join(", ")})`);
}

const servicePrismaDir = (service: string, override?: string) =>
  override ? path.resolve(override) : path.join(repoRoot, "services", service, "prisma");

function adminUrl(): string {
  const env = readSchemaToolsEnv();
  if (env.adminUrl) return env.adminUrl;
  return stackAdminUrl(openStack(undefined, false).pg);
}

/** Prisma's folder name: UTC yyyyMMddHHmmss, kept after the newest existing one. */
function migrationFolderName(migrationsDir: string, name: string, now = new Date()): string {
  let stamp = Number(now.toISOString().replace(/[-:T]/g, "").slice(0, 14));
  const newest = fs
    .readdirSync(migrationsDir)
    .map((d) => Number(/^(\d{14})_/.exec(d)?.[1] ?? 0))
    .reduce((a, b) => Math.max(a, b), 0);
  if (stamp <= newest) stamp = newest + 1;
  return `${stamp}_${name}`;
}

async function newMigration(service: string, name: string, prismaDir: string): Promise<number> {
  const schema = readServiceSchema(prismaDir);
  const drift = sharedCopyDrift(schema);
  if (drift.length > 0) return report(service, drift);
  const sql = await schemaDrift(schema, adminUrl());
  if (sql === null) {
    console.log(`${service}: the migrations already produce the schema; nothing to write`);
    return 0;
  }
  const dir = path.join(schema.migrationsDir, migrationFolderName(schema.migrationsDir, name));
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "migration.sql"), sql);
  console.log(`${service}: wrote ${path.relative(process.cwd(), path.join(dir, "migration.sql"))}\n\n${sql}`);
  console.log("Read it before you commit it: it runs at the service's next start, once, and never changes.");
  return 0;
}

async function check(services: string[], prismaDir: string | undefined): Promise<number> {
  let failed = 0;
  const url = adminUrl();
  for (const service of services) {
    const schema = readServiceSchema(servicePrismaDir(service, prismaDir));
    const problems = sharedCopyDrift(schema);
    const sql = await schemaDrift(schema, url);
    if (sql !== null) {
      problems.push(
        `its migrations do not produce its schema; the missing migration would be:\n${sql.trim()}\n` +
          `(pnpm db:new ${service} <name> writes it)`,
      );
    }
    if (problems.length === 0) console.log(`${service}: migrations produce the schema; shared copies match`);
    failed += report(service, problems);
  }
  return failed > 0 ? 1 : 0;
}

function report(service: string, problems: string[]): number {
  for (const p of problems) console.error(`${service}: ${p}`);
  return problems.length > 0 ? 1 : 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "new") {
    const { values, positionals, fail } = parseCli(
      { usage: USAGE, options: PRISMA_DIR, positionals: { min: 2, max: 2 } },
      rest,
    );
    const [service, name] = positionals as [string, string];
    requireServices([service], fail);
    if (!MIGRATION_NAME.test(name))
      fail(`migration name "${name}": lower-case letters, digits and single underscores`);
    return newMigration(service, name, servicePrismaDir(service, values["prisma-dir"]));
  }
  if (command === "check") {
    const { values, positionals, fail } = parseCli(
      { usage: USAGE, options: PRISMA_DIR, positionals: { max: SERVICE_NAMES.length } },
      rest,
    );
    requireServices(positionals, fail);
    const services = positionals.length > 0 ? positionals : [...SERVICE_NAMES];
    const prismaDir = values["prisma-dir"];
    if (prismaDir && services.length !== 1) fail("--prisma-dir goes with exactly one service");
    return check(services, prismaDir);
  }
  return exitWithUsage(command ? `unknown command ${command}` : "no command", USAGE);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`db: ${(e as Error).message}`);
    process.exit(1);
  },
);

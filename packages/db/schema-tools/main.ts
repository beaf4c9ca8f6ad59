// `pnpm db:new <service> <name>` and `pnpm db:check [service...]`: Prisma Migrate's two everyday jobs,
// offline. Prisma's CLI needs a native engine these machines cannot download; this drives the same
// engine's WebAssembly build. Where the CLI works, `prisma migrate dev` reads the same folders.
import fs from "node:fs";
import path from "node:path";
import { openStack, repoRoot, SERVICE_NAMES, adminUrl as stackAdminUrl } from "@orderflow/infra";
import { readSchemaToolsEnv } from "./env.ts";
import { schemaDrift } from "./schema-drift.ts";
import { readServiceSchema, sharedCopyDrift } from "./service-schema.ts";

const USAGE = `usage:
  pnpm db:new <service> <migration_name> [--prisma-dir DIR]   write the migration a schema change needs
  pnpm db:check [service...] [--prisma-dir DIR]                fail when migrations do not produce the schema
services: ${SERVICE_NAMES.join(", ")}; --prisma-dir points one service at another prisma folder (a copy)`;

class UsageError extends Error {}

function parse(argv: string[]) {
  const args = [...argv];
  const command = args.shift();
  let prismaDir: string | undefined;
  const rest: string[] = [];
  while (args.length > 0) {
    const a = args.shift() as string;
    if (a === "--prisma-dir") {
      const v = args.shift();
      if (!v) throw new UsageError("--prisma-dir needs a folder");
      prismaDir = path.resolve(v);
    } else if (a.startsWith("--")) throw new UsageError(`unknown option ${a}`);
    else rest.push(a);
  }
  for (const s of command === "new" ? rest.slice(0, 1) : rest) {
    if (!(SERVICE_NAMES as readonly string[]).includes(s)) {
      throw new UsageError(`unknown service "${s}" (one of ${SERVICE_NAMES.join(", ")})`);
    }
  }
  return { command, rest, prismaDir };
}

const servicePrismaDir = (service: string, override?: string) =>
  override ?? path.join(repoRoot, "services", service, "prisma");

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
  if (!/^[a-z0-9]+(_[a-z0-9]+)*$/.test(name)) {
    throw new UsageError(`migration name "${name}": lower-case letters, digits and single underscores`);
  }
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
  const { command, rest, prismaDir } = parse(argv);
  if (command === "new") {
    const [service, name, extra] = rest;
    if (!service || !name || extra) throw new UsageError("db:new takes a service and a migration name");
    return newMigration(service, name, servicePrismaDir(service, prismaDir));
  }
  if (command === "check") {
    const services = rest.length > 0 ? rest : [...SERVICE_NAMES];
    if (prismaDir && services.length !== 1)
      throw new UsageError("--prisma-dir goes with exactly one service");
    return check(services, prismaDir);
  }
  throw new UsageError(command ? `unknown command ${command}` : "no command");
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof UsageError ? `${e.message}\n${USAGE}` : `db: ${(e as Error).message}`);
    process.exit(e instanceof UsageError ? 2 : 1);
  },
);

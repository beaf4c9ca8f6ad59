// Where a service keeps its database's truth: prisma/schema/*.prisma (its models plus verbatim copies of
// the outbox and inbox models) and prisma/migrations/ (its migrations plus copies of theirs).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SchemaFile } from "./schema-engine.ts";

const PACKAGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The shared parts every service copies: a model file and its package's migrations folder. */
const SHARED = [
  { schemaFile: "outbox.prisma", from: path.join(PACKAGES, "outbox/prisma") },
  { schemaFile: "inbox.prisma", from: path.join(PACKAGES, "messaging/prisma") },
];

export interface ServiceSchema {
  prismaDir: string;
  schemaDir: string;
  migrationsDir: string;
  files: SchemaFile[];
}

export function readServiceSchema(prismaDir: string): ServiceSchema {
  const schemaDir = path.join(prismaDir, "schema");
  const migrationsDir = path.join(prismaDir, "migrations");
  for (const dir of [schemaDir, migrationsDir]) {
    if (!fs.existsSync(dir))
      throw new Error(`${dir} does not exist: is ${prismaDir} a service's prisma folder?`);
  }
  const files = fs
    .readdirSync(schemaDir)
    .filter((f) => f.endsWith(".prisma"))
    .sort()
    .map((f) => ({
      path: path.join(schemaDir, f),
      content: fs.readFileSync(path.join(schemaDir, f), "utf8"),
    }));
  return { prismaDir, schemaDir, migrationsDir, files };
}

/** Every way the service's copies of the shared models and migrations differ from the packages'. */
export function sharedCopyDrift(s: ServiceSchema): string[] {
  const problems: string[] = [];
  for (const shared of SHARED) {
    const original = fs.readFileSync(path.join(shared.from, shared.schemaFile), "utf8");
    const copy = path.join(s.schemaDir, shared.schemaFile);
    if (!fs.existsSync(copy))
      problems.push(`${copy} is missing (copy ${path.join(shared.from, shared.schemaFile)})`);
    else if (fs.readFileSync(copy, "utf8") !== original) {
      problems.push(`${copy} differs from ${path.join(shared.from, shared.schemaFile)}: copy it again`);
    }
    const migrations = path.join(shared.from, "migrations");
    for (const name of fs.readdirSync(migrations)) {
      const want = path.join(migrations, name, "migration.sql");
      const have = path.join(s.migrationsDir, name, "migration.sql");
      if (!fs.existsSync(want)) continue;
      if (!fs.existsSync(have)) problems.push(`${have} is missing (copy ${path.dirname(want)})`);
      else if (fs.readFileSync(have, "utf8") !== fs.readFileSync(want, "utf8")) {
        problems.push(`${have} differs from ${want}: an applied migration never changes`);
      }
    }
  }
  return problems;
}

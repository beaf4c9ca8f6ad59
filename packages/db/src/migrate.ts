// Applies Prisma-format migrations (`<dir>/<timestamp>_<name>/migration.sql`) without Prisma's native
// schema engine, a platform binary a service then need not ship. It records each migration in Prisma's own
// `_prisma_migrations` table (same columns, checksum = sha256 of the file) so that Prisma's CLI, where it
// is available, sees the same history and does not re-apply anything.
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";

// Prisma's migrate commands take this same advisory lock, so our runner and theirs exclude each other.
const PRISMA_MIGRATE_LOCK = 72707369;

const CREATE_HISTORY = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  name: string;
  file: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
  /** Applied migrations whose file changed since (Prisma warns about these too). */
  modified: string[];
}

/** Every `<name>/migration.sql` under the given folders, sorted by folder name (Prisma's order). */
export function readMigrations(migrationsDirs: string[]): MigrationFile[] {
  const found = new Map<string, MigrationFile>();
  for (const dir of migrationsDirs) {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name, "migration.sql");
      if (!entry.isDirectory() || !fs.existsSync(file)) continue;
      if (found.has(entry.name)) throw new Error(`migration ${entry.name} appears in two folders`);
      const bytes = fs.readFileSync(file);
      const checksum = createHash("sha256").update(bytes).digest("hex");
      found.set(entry.name, { name: entry.name, file, sql: bytes.toString("utf8"), checksum });
    }
  }
  return [...found.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Applies the migrations not yet recorded as finished, each in its own transaction, under Prisma's
 * advisory lock. Idempotent: a second call applies nothing.
 */
export async function applyMigrations(opts: {
  databaseUrl: string;
  migrationsDirs: string[];
  log?: (message: string) => void;
}): Promise<MigrateResult> {
  const migrations = readMigrations(opts.migrationsDirs);
  const client = new pg.Client({ connectionString: opts.databaseUrl });
  await client.connect();
  const result: MigrateResult = { applied: [], alreadyApplied: [], modified: [] };
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK]);
    await client.query(CREATE_HISTORY);
    const done = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations"
        WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Map(done.rows.map((r) => [r.migration_name, r.checksum]));
    for (const m of migrations) {
      const previous = applied.get(m.name);
      if (previous !== undefined) {
        result.alreadyApplied.push(m.name);
        if (previous !== m.checksum) result.modified.push(m.name);
        continue;
      }
      await applyOne(client, m);
      opts.log?.(`applied ${m.name}`);
      result.applied.push(m.name);
    }
    return result;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK]).catch(() => {});
    await client.end().catch(() => {});
  }
}

async function applyOne(client: pg.Client, m: MigrationFile): Promise<void> {
  const startedAt = new Date();
  try {
    await client.query("BEGIN");
    // A multi-statement simple query: pg sends it without parameters, as Prisma does.
    await client.query(m.sql);
    await client.query(
      `INSERT INTO "_prisma_migrations"
         (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
       VALUES ($1, $2, now(), $3, NULL, NULL, $4, 1)`,
      [randomUUID(), m.checksum, m.name, startedAt],
    );
    await client.query("COMMIT");
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {});
    throw new Error(`migration ${m.name} failed: ${(e as Error).message}`);
  }
}

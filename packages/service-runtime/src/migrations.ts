// A service's database holds its own tables plus the outbox and the inbox; their migrations live with
// their packages and are applied together, in Prisma's order (by folder name), by @orderflow/db.
import { applyMigrations, type MigrateResult } from "@orderflow/db";
import { INBOX_MIGRATIONS_DIR } from "@orderflow/messaging";
import { OUTBOX_MIGRATIONS_DIR } from "@orderflow/outbox";

export function serviceMigrationDirs(serviceMigrationsDir: string): string[] {
  return [OUTBOX_MIGRATIONS_DIR, INBOX_MIGRATIONS_DIR, serviceMigrationsDir];
}

export function migrateService(databaseUrl: string, serviceMigrationsDir: string): Promise<MigrateResult> {
  return applyMigrations({ databaseUrl, migrationsDirs: serviceMigrationDirs(serviceMigrationsDir) });
}

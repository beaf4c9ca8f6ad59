// A service's database holds its own tables plus the outbox and the inbox, all in one Prisma schema
// (prisma/schema/) and one migrations folder (prisma/migrations/), applied in Prisma's order by
// @orderflow/db under Prisma's advisory lock before the service listens.
import { applyMigrations, type MigrateResult } from "@orderflow/db";

export function migrateService(databaseUrl: string, migrationsDir: string): Promise<MigrateResult> {
  return applyMigrations({ databaseUrl, migrationsDirs: [migrationsDir] });
}

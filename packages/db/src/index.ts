export { applyMigrations, type MigrateResult, type MigrationFile, readMigrations } from "./migrate.ts";
export { pgTransaction, type SqlTx } from "./sql-tx.ts";

export { type ExclusiveOutcome, pgExclusive, type RunExclusive } from "./exclusive.ts";
export { applyMigrations, type MigrateResult, type MigrationFile, readMigrations } from "./migrate.ts";
export { KEEP_IDLE_CONNECTIONS } from "./pool-options.ts";
export type { RunTransaction } from "./run-transaction.ts";
export { isDataError, sqlStateOf } from "./sql-errors.ts";
export {
  pgAutocommit,
  pgTransaction,
  preparedQuery,
  type SqlFragment,
  type SqlTx,
  sqlText,
} from "./sql-tx.ts";

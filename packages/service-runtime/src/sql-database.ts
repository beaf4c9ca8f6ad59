// Plain-SQL pools on node-postgres, with BEGIN/COMMIT transactions and, for a write that is one statement,
// statements that commit alone: the consumer's (a burst of deliveries cannot starve the HTTP path) and the
// HTTP hot path's (POST /orders, one statement). These are the saga's hot paths:
// Prisma's client costs 4-5x node-postgres' CPU per statement there, raw queries included. Prisma's
// schema and migrations still define every table these statements touch, and Prisma serves the rest.
import {
  KEEP_IDLE_CONNECTIONS,
  pgAutocommit,
  pgExclusive,
  pgTransaction,
  type RunTransaction,
  type SqlTx,
} from "@orderflow/db";
import type { Logger } from "@orderflow/logging";
import pg from "pg";

// As Prisma's limits are (prisma-database.ts): up to 10 s for a connection, and no statement or idle
// transaction holding row locks for more than 15 s (it ends: a consumer's messages are retried, a request
// fails with a problem answer).
const LIMITS = {
  connectionTimeoutMillis: 10_000,
  statement_timeout: 15_000,
  idle_in_transaction_session_timeout: 15_000,
};

export function sqlDatabase(url: string, log: Logger, opts: { name: string; max: number }) {
  const pool = new pg.Pool({ connectionString: url, max: opts.max, ...LIMITS, ...KEEP_IDLE_CONNECTIONS });
  // An idle connection dropped by the server (a PostgreSQL restart) must not crash the process.
  pool.on("error", (e) => log.warn({ error: e.message }, `${opts.name}_pool.error`));
  const transaction: RunTransaction<SqlTx> = (fn) => pgTransaction(pool, fn);
  // For the writes that are one statement (atomic without BEGIN/COMMIT).
  const autocommit = pgAutocommit(pool);
  // One instance at a time for the service's periodic jobs (the lock holds one connection per run).
  const exclusive = pgExclusive(pool);
  return { transaction, autocommit, exclusive, close: () => pool.end() };
}

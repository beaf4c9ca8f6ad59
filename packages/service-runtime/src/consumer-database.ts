// The consumer's database: a node-postgres pool of its own (a burst of deliveries cannot starve the HTTP
// path's Prisma pool), with plain BEGIN/COMMIT transactions. This is the saga's hot path: Prisma's client
// costs 4-5x node-postgres' CPU per statement there, raw queries included. Prisma's schema and
// migrations still define every table these statements touch.
import { pgTransaction, type RunTransaction, type SqlTx } from "@orderflow/db";
import type { Logger } from "@orderflow/logging";
import pg from "pg";

// As Prisma's limits were (prisma-database.ts): up to 10 s for a connection, and no statement or idle
// transaction holding row locks for more than 15 s (it ends, and its messages are retried).
const LIMITS = {
  max: 4,
  connectionTimeoutMillis: 10_000,
  statement_timeout: 15_000,
  idle_in_transaction_session_timeout: 15_000,
};

export function consumerDatabase(url: string, log: Logger) {
  const pool = new pg.Pool({ connectionString: url, ...LIMITS });
  // An idle connection dropped by the server (a PostgreSQL restart) must not crash the process.
  pool.on("error", (e) => log.warn({ error: e.message }, "consumer_pool.error"));
  const transaction: RunTransaction<SqlTx> = (fn) => pgTransaction(pool, fn);
  return { transaction, close: () => pool.end() };
}

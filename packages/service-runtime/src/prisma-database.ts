// The database half of a ServiceDefinition for a service on Prisma, the same for every service: its
// generated client on the pg driver adapter (Prisma 7, no native query engine), interactive transactions
// with bounded waits, disconnect on shutdown.
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { RunTransaction, SqlTx } from "@orderflow/db";
import { PrismaPg } from "@prisma/adapter-pg";

/** What the runtime needs of a Prisma client (PrismaClient satisfies it). */
export interface PrismaClientLike<Tx> {
  $transaction<R>(fn: (tx: Tx) => Promise<R>, options?: { maxWait?: number; timeout?: number }): Promise<R>;
  $connect(): Promise<void>;
  $disconnect(): Promise<void>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
  /** Every service's schema carries the outbox's model (packages/outbox/prisma). */
  outbox: { findFirst(args: { select: { id: true } }): PromiseLike<unknown> };
}

// Up to 10 s to get a connection, 15 s for the whole transaction: an HTTP route's transaction holds row
// locks (a cancel locks its order), and one that hangs must end rather than block the saga behind it.
// The plain-SQL hot paths (the consumer, POST /orders) run on node-postgres with the same 10 s for a
// connection and 15 s for each statement and each idle gap in a transaction (sql-database.ts).
const LIMITS = { maxWait: 10_000, timeout: 15_000 };

/** A service's generated PrismaClient class. */
export type PrismaClientClass<Db> = new (options: { adapter: PrismaPg }) => Db;

export interface ServiceDatabase<Db, Tx extends SqlTx> {
  /** A client with a pool of `max` connections (default 10). */
  createDb(databaseUrl: string, max?: number): Db;
  transaction(db: Db): RunTransaction<Tx>;
  disconnect(db: Db): Promise<void>;
  /** Pays the client's one-time costs before the service listens. */
  warm(db: Db): Promise<void>;
}

/** A service's Prisma-format migrations, beside its sources: `moduleUrl` is a src/ file's import.meta.url. */
export const migrationsDirOf = (moduleUrl: string): string =>
  path.resolve(path.dirname(fileURLToPath(moduleUrl)), "../prisma/migrations");

export function prismaDatabase<Db extends PrismaClientLike<Tx>, Tx extends SqlTx>(
  Client: PrismaClientClass<Db>,
): ServiceDatabase<Db, Tx> {
  return {
    createDb: (databaseUrl, max = 10) =>
      new Client({ adapter: new PrismaPg({ connectionString: databaseUrl, max }) }),
    transaction: (db) => (fn) => db.$transaction(fn, LIMITS),
    disconnect: (db) => db.$disconnect(),
    // Prisma 7's client pays once, on its first use, for its connection, its first raw query and its
    // first model query: 0.4-0.6 s of CPU and up to 0.3 s of blocked event loop per process, measured.
    // Left to the first use, that was the order service's first reconciliation pass (and the peers'
    // answers to it) a minute after start: every service stalled at once, mid-load (a stall at 40/s, p99
    // 0.6-2.3 s in every bench ladder). Paid here, before the service listens.
    warm: async (db) => {
      await db.$connect();
      await db.$queryRawUnsafe("SELECT 1");
      await db.outbox.findFirst({ select: { id: true } });
    },
  };
}

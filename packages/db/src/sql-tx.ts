// The one shape of "a database transaction" that shared packages (outbox, inbox) write through.
// A Prisma interactive-transaction client satisfies it as is, so a service passes its `tx` straight in;
// `pgTransaction` gives the same shape over node-postgres for benchmarks and tools without Prisma.
import type pg from "pg";

export interface SqlTx {
  /** Runs a statement with $1..$n placeholders; resolves to the number of affected rows. */
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
  /** Runs a query with $1..$n placeholders; resolves to its rows. */
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
}

/** Runs `fn` inside BEGIN/COMMIT on one pooled connection; rolls back if it throws. */
export async function pgTransaction<T>(pool: pg.Pool, fn: (tx: SqlTx) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A checked-out client has no pool listener: a server-side termination between two statements (e.g. a
  // PostgreSQL restart) would otherwise be an unhandled 'error' event that crashes the process.
  let broken: Error | undefined;
  const onError = (e: Error) => {
    broken = e;
  };
  client.on("error", onError);
  const tx: SqlTx = {
    $executeRawUnsafe: async (q, ...v) => (await client.query(q, v)).rowCount ?? 0,
    $queryRawUnsafe: async <R>(q: string, ...v: unknown[]) => (await client.query(q, v)).rows as R,
  };
  try {
    await client.query("BEGIN");
    const result = await fn(tx);
    await client.query("COMMIT");
    return result;
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {});
    throw e;
  } finally {
    client.off("error", onError);
    // Releasing with the error destroys the connection instead of returning it to the pool.
    client.release(broken);
  }
}

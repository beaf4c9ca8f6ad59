// The one shape of "a database transaction" that shared packages (outbox, inbox) and the services'
// saga steps write through. A Prisma interactive-transaction client satisfies it as is, so a service
// passes its `tx` straight in; `pgTransaction` gives the same shape over node-postgres: the consumers'
// hot path, where Prisma's client costs 4-5x node-postgres' CPU per statement even for raw queries
// (measured: 0.6 against 0.13 ms of client CPU per statement), and benchmarks and tools without Prisma.
import type pg from "pg";

/** A fragment of SQL with its values, as Prisma.sql builds them (nestable in a tagged query). */
export interface SqlFragment {
  readonly strings: readonly string[];
  readonly values: readonly unknown[];
}

export interface SqlTx {
  /** Runs a statement with $1..$n placeholders; resolves to the number of affected rows. */
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
  /** Runs a query with $1..$n placeholders; resolves to its rows. */
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
  /** A tagged statement: each `${value}` a parameter, a nested fragment (Prisma.sql) inlined. */
  $executeRaw(query: TemplateStringsArray | SqlFragment, ...values: unknown[]): PromiseLike<number>;
  /** A tagged query: each `${value}` a parameter, a nested fragment (Prisma.sql) inlined. */
  $queryRaw<T = unknown>(query: TemplateStringsArray | SqlFragment, ...values: unknown[]): PromiseLike<T>;
}

const isFragment = (v: unknown): v is SqlFragment =>
  typeof v === "object" && v !== null && Array.isArray((v as SqlFragment).strings) && "values" in v;

/** A tagged query as text with $1..$n and its parameters; nested fragments are inlined. */
export function sqlText(
  query: TemplateStringsArray | SqlFragment,
  values: readonly unknown[],
): { text: string; params: unknown[] } {
  const params: unknown[] = [];
  const walk = (strings: readonly string[], vals: readonly unknown[]): string => {
    let text = strings[0] ?? "";
    for (let i = 0; i < vals.length; i++) {
      const v = vals[i];
      if (isFragment(v)) text += walk(v.strings, v.values);
      else {
        params.push(v);
        text += `$${params.length}`;
      }
      text += strings[i + 1] ?? "";
    }
    return text;
  };
  const text = isFragment(query) ? walk(query.strings, query.values) : walk(query, values);
  return { text, params };
}

// Each distinct statement text gets a name, so node-postgres prepares it once per connection and later
// executions skip PostgreSQL's parse and analysis (the saga's hot path runs ~20 statements per order, each
// paid in full as an unnamed statement). Bounded: past this many texts (a caller building SQL
// with varying shape) statements run unnamed, as before.
const MAX_NAMED = 512;
const names = new Map<string, string>();

/** The query config for `text`: named when it is (or can become) one of the prepared texts. */
export function preparedQuery(text: string, values: unknown[]): pg.QueryConfig {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `orderflow_${names.size + 1}`;
    names.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}

/** The SqlTx shape over anything node-postgres can query: a checked-out client, or the pool itself. */
function sqlTxOver(db: pg.Pool | pg.PoolClient): SqlTx {
  const exec = async (q: string, v: unknown[]) => (await db.query(preparedQuery(q, v))).rowCount ?? 0;
  const query = async <R>(q: string, v: unknown[]) => (await db.query(preparedQuery(q, v))).rows as R;
  return {
    $executeRawUnsafe: (q, ...v) => exec(q, v),
    $queryRawUnsafe: <R>(q: string, ...v: unknown[]) => query<R>(q, v),
    $executeRaw: (q, ...v) => {
      const { text, params } = sqlText(q, v);
      return exec(text, params);
    },
    $queryRaw: <R>(q: TemplateStringsArray | SqlFragment, ...v: unknown[]) => {
      const { text, params } = sqlText(q, v);
      return query<R>(text, params);
    },
  };
}

/**
 * Statements on the pool with no transaction around them: each commits alone (autocommit). For a write
 * that is one statement, which PostgreSQL applies whole or not at all: BEGIN and COMMIT would only add
 * two round trips.
 */
export const pgAutocommit = (pool: pg.Pool): SqlTx => sqlTxOver(pool);

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
  const tx = sqlTxOver(client);
  try {
    await client.query("BEGIN");
    const result = await fn(tx);
    // PostgreSQL answers COMMIT in a failed transaction (a statement's error caught inside fn) with a
    // ROLLBACK and no error: without this check the caller would ack work that never committed.
    const end = await client.query("COMMIT");
    if (end.command === "ROLLBACK")
      throw new Error("COMMIT rolled back: a statement in the transaction had failed");
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

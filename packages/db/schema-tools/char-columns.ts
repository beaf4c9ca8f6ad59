// adapter-pg has no column type for PostgreSQL's one-byte "char" (OID 18): a query returning one fails
// with "Column type 'char' could not be deserialized". pg_catalog uses it (pg_constraint.contype, ...),
// so Prisma's schema engine cannot introspect a database through the stock adapter. This pool marks such
// columns on the result, and the adapter wrapper below reports them as Character, which is what the
// engine's describer reads them as.
import {
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import pg from "pg";
import { onEachConnection } from "./each-connection.ts";

const PG_CHAR_OID = 18;
const CHAR_COLUMNS = Symbol("charColumns");
type MarkedRows = unknown[] & { [CHAR_COLUMNS]?: number[] };

function markCharColumns<T>(result: T): T {
  const r = result as unknown as pg.QueryResult;
  const indexes = (r.fields ?? []).flatMap((f, i) => (f.dataTypeID === PG_CHAR_OID ? [i] : []));
  if (indexes.length > 0 && Array.isArray(r.rows)) {
    // pg parses "char" as text already; only the adapter's type table lacks it.
    for (const i of indexes) (r.fields[i] as { dataTypeID: number }).dataTypeID = 25;
    Object.defineProperty(r.rows, CHAR_COLUMNS, { value: indexes, enumerable: false });
  }
  return result;
}

/** A pg.Pool whose promise queries remember which columns were "char". */
export class CharMarkingPool extends pg.Pool {
  override query(...args: unknown[]): never {
    const out = (super.query as (...a: unknown[]) => unknown)(...args);
    return (out instanceof Promise ? out.then(markCharColumns) : out) as never;
  }
}

function reportCharColumns(adapter: SqlDriverAdapter): SqlDriverAdapter {
  return new Proxy(adapter, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== "queryRaw" || typeof value !== "function") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (...args: unknown[]) => {
        const result = await value.apply(target, args);
        for (const i of (result.rows as MarkedRows)[CHAR_COLUMNS] ?? [])
          result.columnTypes[i] = ColumnTypeEnum.Character;
        return result;
      };
    },
  });
}

/** Wraps a factory built on a CharMarkingPool so every connection it opens reports "char" columns. */
export function withCharColumns(
  factory: SqlMigrationAwareDriverAdapterFactory,
): SqlMigrationAwareDriverAdapterFactory {
  return onEachConnection(factory, reportCharColumns);
}

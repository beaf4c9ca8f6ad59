// adapter-pg runs a migration script by cutting it at every ";", those inside a quoted function body or a
// comment included, and sending the pieces one by one: a trigger function written in PL/pgSQL reaches the
// server in halves. PostgreSQL takes a whole script as one simple-protocol query, which is how Prisma's
// native engine and our own runner send it, so this wrapper sends it whole too.
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import type pg from "pg";
import { onEachConnection } from "./each-connection.ts";

// adapter-pg's own members, beyond the driver-adapter interface.
type PgAdapter = SqlDriverAdapter & { underlyingDriver(): pg.Pool; onError(error: unknown): never };

function sendScriptsWhole(adapter: SqlDriverAdapter): SqlDriverAdapter {
  return new Proxy(adapter, {
    get(target, prop, receiver) {
      if (prop === "executeScript") {
        return async (script: string) => {
          try {
            await (target as PgAdapter).underlyingDriver().query(script);
          } catch (error) {
            // The adapter's own conversion, so the engine reports the server's error as it would.
            (target as PgAdapter).onError(error);
          }
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Wraps a factory so every connection it opens runs a script in one round trip. */
export function withWholeScripts(
  factory: SqlMigrationAwareDriverAdapterFactory,
): SqlMigrationAwareDriverAdapterFactory {
  return onEachConnection(factory, sendScriptsWhole);
}

// The schema engine opens its connections through a driver-adapter factory; wrapping what the factory
// returns is how the adapter wrappers beside this file reach every connection, the shadow database's too.
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";

/** The factory, with `wrap` applied to every connection it opens. */
export function onEachConnection(
  factory: SqlMigrationAwareDriverAdapterFactory,
  wrap: (adapter: SqlDriverAdapter) => SqlDriverAdapter,
): SqlMigrationAwareDriverAdapterFactory {
  return new Proxy(factory, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === "connect" || prop === "connectToShadowDb") {
        return async () => wrap(await value.call(target));
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

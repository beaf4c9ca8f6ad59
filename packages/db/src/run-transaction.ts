import type { SqlTx } from "./sql-tx.ts";

/**
 * Opens a transaction the caller's way, e.g. `(fn) => prisma.$transaction(fn)` or
 * `(fn) => pgTransaction(pool, fn)`. Generic over the transaction type, so a service's handlers receive
 * its own typed `tx` (a Prisma client) while shared packages write through the SqlTx it also satisfies.
 */
export type RunTransaction<Tx extends SqlTx = SqlTx> = <R>(fn: (tx: Tx) => Promise<R>) => Promise<R>;

// A write that is one statement, with its events: the business rows as CTEs, the outbox rows in the same
// statement, run with no transaction around it (PostgreSQL applies one statement whole or not at all).
// POST /orders took BEGIN, its statement, the outbox insert and COMMIT, four round trips with the
// connection held in between; now one (issue 11). The rows are inserted leased to the fast path, which
// publishes them right after, as a transaction's would be.
//
// A service composed with another way of writing events (the fault lab's `enqueue` part) cannot join
// that statement: its write runs as a transaction, the gate read back, then each event written its way.
import { type SqlTx, sqlText } from "@orderflow/db";
import {
  type GatedWrite,
  insertWithOutboxRows,
  type OutboxEvent,
  outboxRow,
  type Relay,
} from "@orderflow/outbox";
import type { Enqueue } from "./parts.ts";

type Write = (write: GatedWrite, events: readonly OutboxEvent[]) => Promise<boolean>;

export function gatedWrites(
  via:
    | { autocommit: SqlTx; relay: Pick<Relay, "afterCommit" | "insertLeaseMs" | "publishLeased"> }
    | { inSqlTransaction: <T>(work: (tx: SqlTx, enqueue: Enqueue) => Promise<T>) => Promise<T> },
): Write {
  if ("inSqlTransaction" in via) {
    const { inSqlTransaction } = via;
    return (write, events) =>
      inSqlTransaction(async (tx, enqueue) => {
        const { text, params } = sqlText(write.ctes, []);
        const [gate] = await tx.$queryRawUnsafe<{ written: number }[]>(
          `WITH ${text} SELECT count(*)::int AS written FROM ${write.gate}`,
          ...params,
        );
        if (!gate?.written) return false;
        for (const e of events) await enqueue(e);
        return true;
      });
  }
  const { autocommit, relay } = via;
  return async (write, events) => {
    const rows = events.map(outboxRow);
    // A claim that takes more than a lease gets the ids instead, and claims the rows itself.
    const leaseMs = relay.insertLeaseMs;
    const { written, claimed } = await insertWithOutboxRows(autocommit, write, rows, leaseMs ?? 0);
    if (!written) return false;
    if (leaseMs === undefined) relay.afterCommit(rows.map((r) => r.messageId));
    else relay.publishLeased(claimed);
    return true;
  };
}

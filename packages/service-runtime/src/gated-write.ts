// A write that is one statement, with its events: the business rows as CTEs, the outbox rows in the same
// statement, run with no transaction around it (PostgreSQL applies one statement whole or not at all).
// POST /orders took BEGIN, its statement, the outbox insert and COMMIT, four round trips with the
// connection held in between; now one. The rows are inserted leased to the fast path, which publishes
// them right after, as a transaction's would be.
import type { SqlTx } from "@orderflow/db";
import { insertWithOutboxRows, outboxRow, type Relay, unleased } from "@orderflow/outbox";
import type { WriteWithEvents } from "./parts.ts";

export function gatedWrites(
  autocommit: SqlTx,
  relay: Pick<Relay, "afterCommit" | "insertLeaseMs" | "publishLeased">,
): WriteWithEvents {
  return async (write, events) => {
    const rows = events.map(outboxRow);
    // A claim that takes more than a lease gets the ids instead, and claims the rows itself.
    const leaseMs = relay.insertLeaseMs;
    const { written, claimed } = await insertWithOutboxRows(autocommit, write, rows, leaseMs ?? 0);
    if (!written) return false;
    if (leaseMs === undefined) relay.afterCommit(rows.map((r) => r.messageId));
    else {
      relay.publishLeased(claimed);
      relay.afterCommit(unleased(rows).map((r) => r.messageId));
    }
    return true;
  };
}

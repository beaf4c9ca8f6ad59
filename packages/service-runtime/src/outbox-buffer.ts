// A transaction's outbox writes, held for its end: a consumer batch of 50 deliveries writes its 50 replies
// in one INSERT instead of 50, and a POST its event with the same statement. Each row is prepared when
// the step enqueues it (its message id fixed, the writer's trace context captured), and inserted before
// the commit, so the rows still commit or roll back with the business writes. When the relay's claim is
// a lease, the rows are inserted already leased to its fast path, which publishes them after the commit
// without claiming them (one statement fewer per commit); otherwise their ids go to the fast path, which
// claims them (an ordered stream's rows always go this way: a claim checks their turn). Either way one
// publish window carries a whole batch's replies.
//
// The replies' marks (markDone: the rows they answer are done) are held the same way and go in one UPDATE,
// in the same statement as the leased insert: a batch's marks and rows cost one statement.
// Nothing in a step reads an outbox row's status back, so holding its mark to the end changes no outcome.
import type { RunTransaction, SqlTx } from "@orderflow/db";
import {
  type ClaimedRow,
  type DoneMark,
  enqueue,
  insertLeasedRows,
  insertOutboxRows,
  markDone,
  markDoneMany,
  type OutboxEvent,
  type OutboxRow,
  outboxRow,
  type Relay,
  unleased,
} from "@orderflow/outbox";

interface Held {
  rows: OutboxRow[];
  marks: DoneMark[];
}

export function bufferedOutbox<Tx extends SqlTx>(
  run: RunTransaction<Tx>,
  relay: Pick<Relay, "afterCommit" | "insertLeaseMs" | "publishLeased">,
) {
  const held = new WeakMap<Tx, Held>();
  const transaction: RunTransaction<Tx> = async (fn) => {
    let rows: OutboxRow[] = [];
    const leaseMs = relay.insertLeaseMs;
    let leased: ClaimedRow[] = [];
    const result = await run(async (tx) => {
      const own: Held = { rows: [], marks: [] }; // a retried transaction starts over
      rows = own.rows;
      leased = [];
      held.set(tx, own);
      try {
        const r = await fn(tx);
        if (leaseMs === undefined) {
          await markDoneMany(tx, own.marks);
          await insertOutboxRows(tx, rows);
        } else leased = await insertLeasedRows(tx, rows, leaseMs, own.marks);
        return r;
      } finally {
        held.delete(tx);
      }
    });
    if (leaseMs === undefined) {
      if (rows.length > 0) relay.afterCommit(rows.map((r) => r.messageId));
    } else {
      relay.publishLeased(leased);
      relay.afterCommit(unleased(rows).map((r) => r.messageId));
    }
    return result;
  };
  const write = (tx: Tx, event: OutboxEvent): Promise<string> => {
    const own = held.get(tx);
    if (!own) return enqueue(tx, event); // a transaction not opened here: written at once
    const row = outboxRow(event);
    own.rows.push(row);
    return Promise.resolve(row.messageId);
  };
  const done = async (tx: Tx, mark: DoneMark): Promise<void> => {
    const own = held.get(tx);
    if (!own) await markDone(tx, mark.causationId, mark.onlyForAggregate);
    else own.marks.push(mark);
  };
  return { transaction, write, done };
}

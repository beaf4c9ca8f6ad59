// The consumer's outbox writes, held for the end of its transaction: a batch of 50 deliveries writes its
// 50 replies in one INSERT instead of 50. Each row is prepared when the step enqueues it (its message id
// fixed, the delivery's trace context captured), and inserted before the commit, so the rows still
// commit or roll back with the business writes. After the commit their ids go to the relay's fast path,
// as a POST's do (withOutbox): one claim and one publish window for the whole batch's replies.
import type { RunTransaction, SqlTx } from "@orderflow/db";
import { enqueue, insertOutboxRows, type OutboxEvent, type OutboxRow, outboxRow } from "@orderflow/outbox";

export function bufferedOutbox<Tx extends SqlTx>(
  run: RunTransaction<Tx>,
  afterCommit: (messageIds: string[]) => void,
) {
  const held = new WeakMap<Tx, OutboxRow[]>();
  const transaction: RunTransaction<Tx> = async (fn) => {
    let rows: OutboxRow[] = [];
    const result = await run(async (tx) => {
      rows = []; // a retried transaction starts over
      held.set(tx, rows);
      try {
        const r = await fn(tx);
        await insertOutboxRows(tx, rows);
        return r;
      } finally {
        held.delete(tx);
      }
    });
    if (rows.length > 0) afterCommit(rows.map((r) => r.messageId));
    return result;
  };
  const write = (tx: Tx, event: OutboxEvent): Promise<string> => {
    const rows = held.get(tx);
    if (!rows) return enqueue(tx, event); // a transaction not opened here: written at once
    const row = outboxRow(event);
    rows.push(row);
    return Promise.resolve(row.messageId);
  };
  return { transaction, write };
}

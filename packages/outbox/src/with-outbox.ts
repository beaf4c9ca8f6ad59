import type { RunTransaction, SqlTx } from "@orderflow/db";
import { enqueue } from "./enqueue.ts";
import type { OutboxEvent } from "./types.ts";

/**
 * Runs `work` in a transaction with an `enqueue` bound to it, and after the transaction has COMMITTED
 * hands the enqueued message ids to `afterCommit` (the relay's fast path). If `work` or the commit throws,
 * nothing is handed over and no row exists. The fast path is only an optimisation: the sweep publishes
 * the same rows if this process dies right after the commit.
 */
export async function withOutbox<Tx extends SqlTx, T>(
  run: RunTransaction<Tx>,
  afterCommit: (messageIds: string[]) => void,
  work: (tx: Tx, enqueue: (event: OutboxEvent) => Promise<string>) => Promise<T>,
): Promise<T> {
  const ids: string[] = [];
  const result = await run(async (tx) => {
    ids.length = 0; // a retried transaction starts over
    return await work(tx, async (event) => {
      const id = await enqueue(tx, event);
      ids.push(id);
      return id;
    });
  });
  if (ids.length > 0) afterCommit([...ids]);
  return result;
}

import { preparedQuery } from "@orderflow/db";
import type pg from "pg";

// One statement for the whole confirmed batch. `status = 0` keeps a row a reply already marked done
// (the reply can overtake our mark-sent) from going back to 1. Event types that no reply will ever
// answer (a saga's last replies) go straight to done: "sent, awaiting a reply" would be a lie that
// reconciliation keeps acting on. The rows are locked in id order, as a consumer batch's markDoneMany
// locks them: whatever plan PostgreSQL picks for `id = ANY`, the two wait for each other instead of
// deadlocking.
const SQL = `
UPDATE outbox o
   SET status = CASE WHEN o.event_type = ANY($2::text[]) THEN 2 ELSE 1 END,
       sent_at = now(),
       done_at = CASE WHEN o.event_type = ANY($2::text[]) THEN now() ELSE o.done_at END,
       attempts = o.attempts + 1
  FROM (SELECT id FROM outbox WHERE id = ANY($1::bigint[]) AND status = 0 ORDER BY id FOR UPDATE) AS t
 WHERE o.id = t.id AND o.status = 0`;

export async function markSent(
  pool: pg.Pool,
  ids: string[],
  doneOnConfirm: readonly string[] = [],
): Promise<number> {
  if (ids.length === 0) return 0;
  return (await pool.query(preparedQuery(SQL, [ids, doneOnConfirm]))).rowCount ?? 0;
}

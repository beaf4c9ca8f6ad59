import type pg from "pg";

// Failed rows go back to pending with a fresh attempt budget. last_error is kept until the next
// outcome overwrites it, so an operator can still see why it failed before.
const SQL = `
UPDATE outbox SET status = 0, attempts = 0, next_attempt_at = now()
 WHERE status = 9
   AND ($1::uuid[] IS NULL OR message_id = ANY($1::uuid[]))
   AND ($2::text IS NULL OR event_type = $2)
RETURNING message_id::text AS message_id`;

export interface RedriveFilter {
  messageIds?: string[];
  eventType?: string;
}

/** Puts failed rows (all, or those matching the filter) back to pending; returns their message ids. */
export async function redriveFailed(pool: pg.Pool, filter: RedriveFilter = {}): Promise<string[]> {
  const r = await pool.query<{ message_id: string }>(SQL, [
    filter.messageIds ?? null,
    filter.eventType ?? null,
  ]);
  return r.rows.map((x) => x.message_id);
}

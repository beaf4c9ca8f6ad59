import type pg from "pg";

// Moves one bounded batch of old done rows in one short statement: the DELETE locks only the rows it
// moves (SKIP LOCKED: never waits on the relay or a markDone), and the INSERT writes the same rows.
const COLUMNS = `id, message_id, event_type, aggregate_type, aggregate_id, payload, schema_version, headers,
  status, attempts, last_error, created_at, sent_at, done_at, republished, ordering_key, sequence`;

const SQL = `
WITH moved AS (
  DELETE FROM outbox
   WHERE id IN (SELECT id FROM outbox
                 WHERE status = 2 AND done_at < now() - make_interval(secs => $1::double precision / 1000)
                 ORDER BY done_at
                 LIMIT $2
                 FOR UPDATE SKIP LOCKED)
  RETURNING ${COLUMNS})
INSERT INTO outbox_archive (${COLUMNS})
SELECT ${COLUMNS} FROM moved
ON CONFLICT (id) DO NOTHING`;

/** Returns how many rows moved (fewer than `limit` means the backlog is cleared). */
export async function archiveDoneBatch(pool: pg.Pool, olderThanMs: number, limit: number): Promise<number> {
  return (await pool.query(SQL, [olderThanMs, limit])).rowCount ?? 0;
}

import type pg from "pg";

const SQL = `
DELETE FROM outbox_archive
 WHERE id IN (SELECT id FROM outbox_archive
               WHERE archived_at < now() - make_interval(secs => $1::double precision / 1000)
               LIMIT $2)`;

/** Deletes one bounded batch of archive rows past the archive's own retention. */
export async function pruneArchiveBatch(pool: pg.Pool, olderThanMs: number, limit: number): Promise<number> {
  return (await pool.query(SQL, [olderThanMs, limit])).rowCount ?? 0;
}

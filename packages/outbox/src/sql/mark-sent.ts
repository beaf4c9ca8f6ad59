import type pg from "pg";

// One statement for the whole confirmed batch. `status = 0` keeps a row a reply already marked done
// (the reply can overtake our mark-sent) from going back to 1.
const SQL = `
UPDATE outbox SET status = 1, sent_at = now(), attempts = attempts + 1
 WHERE id = ANY($1::bigint[]) AND status = 0`;

export async function markSent(pool: pg.Pool, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  return (await pool.query(SQL, [ids])).rowCount ?? 0;
}

import type pg from "pg";

// The broker was unreachable or silent: the rows were not refused, so they go back to due without
// counting an attempt. An outage can last hours and must never push a row towards "failed". Rows locked
// in id order, as mark-sent and markDoneMany lock them.
const SQL = `
UPDATE outbox o SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
  FROM (SELECT id FROM outbox WHERE id = ANY($1::bigint[]) AND status = 0 ORDER BY id FOR UPDATE) AS t
 WHERE o.id = t.id AND o.status = 0`;

export async function releaseClaims(pool: pg.Pool, ids: string[], delayMs = 0): Promise<number> {
  if (ids.length === 0) return 0;
  return (await pool.query(SQL, [ids, delayMs])).rowCount ?? 0;
}

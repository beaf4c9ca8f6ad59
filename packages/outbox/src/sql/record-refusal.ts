import type pg from "pg";

// The broker refused the message (unroutable, nacked, too large). With a delay the row waits for its
// next attempt; without one (schedule exhausted) it becomes failed (9) and waits for a redrive.
const SQL = `
UPDATE outbox
   SET attempts = attempts + 1,
       last_error = $2,
       status = CASE WHEN $3::double precision IS NULL THEN 9 ELSE 0 END,
       next_attempt_at = now() + make_interval(secs => COALESCE($3::double precision, 0) / 1000)
 WHERE id = $1::bigint AND status = 0
RETURNING status, attempts`;

export async function recordRefusal(
  pool: pg.Pool,
  id: string,
  error: string,
  retryDelayMs: number | undefined,
): Promise<{ status: number; attempts: number } | undefined> {
  const r = await pool.query<{ status: number; attempts: number }>(SQL, [id, error, retryDelayMs ?? null]);
  return r.rows[0];
}

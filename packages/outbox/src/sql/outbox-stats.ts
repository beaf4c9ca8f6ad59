import type pg from "pg";

// Read on every metrics scrape, so a stalled relay shows as a growing age even when nothing else runs.
// Each FILTER reads through a partial index; none of them touches history.
const SQL = `
SELECT
  (SELECT count(*) FROM outbox WHERE status = 0)::int AS pending,
  COALESCE((SELECT extract(epoch FROM now() - min(created_at)) FROM outbox WHERE status = 0), 0)::float8
    AS oldest_pending_seconds,
  (SELECT count(*) FROM outbox WHERE status = 9)::int AS failed,
  (SELECT count(*) FROM outbox
    WHERE status = 1 AND sent_at < now() - make_interval(secs => $1::double precision / 1000))::int AS stale_sent,
  COALESCE((SELECT extract(epoch FROM now() - min(sent_at)) FROM outbox
    WHERE status = 1 AND sent_at < now() - make_interval(secs => $1::double precision / 1000)), 0)::float8
    AS oldest_stale_sent_seconds`;

export interface OutboxStats {
  pending: number;
  oldestPendingSeconds: number;
  failed: number;
  staleSent: number;
  oldestStaleSentSeconds: number;
}

export async function outboxStats(pool: pg.Pool, staleSentAfterMs: number): Promise<OutboxStats> {
  const r = await pool.query(SQL, [staleSentAfterMs]);
  const row = r.rows[0];
  return {
    pending: row.pending,
    oldestPendingSeconds: row.oldest_pending_seconds,
    failed: row.failed,
    staleSent: row.stale_sent,
    oldestStaleSentSeconds: row.oldest_stale_sent_seconds,
  };
}

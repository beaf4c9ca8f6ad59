-- The outbox is a queue: under load its rows churn, so autovacuum analyzes it about once a minute, and
-- ANALYZE on a sample of 30 000 rows of every column, the jsonb bodies included, took 0.4-0.6 s of CPU
-- on a 2-core machine: a stall of every commit beside it (issue 11). The planner needs little here,
-- since every statement goes through the primary key, message_id or a partial index on status. So the
-- bodies and the last error get no statistics, and the other columns a sample of 3 000 rows: 0.05-0.1 s.
-- The archive only grows, and is read by id and age: its bodies get no statistics either.
ALTER TABLE "outbox"
  ALTER COLUMN "payload" SET STATISTICS 0,
  ALTER COLUMN "headers" SET STATISTICS 0,
  ALTER COLUMN "last_error" SET STATISTICS 0,
  ALTER COLUMN "id" SET STATISTICS 10,
  ALTER COLUMN "message_id" SET STATISTICS 10,
  ALTER COLUMN "event_type" SET STATISTICS 10,
  ALTER COLUMN "aggregate_type" SET STATISTICS 10,
  ALTER COLUMN "aggregate_id" SET STATISTICS 10,
  ALTER COLUMN "schema_version" SET STATISTICS 10,
  ALTER COLUMN "status" SET STATISTICS 10,
  ALTER COLUMN "attempts" SET STATISTICS 10,
  ALTER COLUMN "next_attempt_at" SET STATISTICS 10,
  ALTER COLUMN "created_at" SET STATISTICS 10,
  ALTER COLUMN "sent_at" SET STATISTICS 10,
  ALTER COLUMN "done_at" SET STATISTICS 10,
  ALTER COLUMN "republished" SET STATISTICS 10;
ALTER TABLE "outbox_archive"
  ALTER COLUMN "payload" SET STATISTICS 0,
  ALTER COLUMN "headers" SET STATISTICS 0,
  ALTER COLUMN "last_error" SET STATISTICS 0;

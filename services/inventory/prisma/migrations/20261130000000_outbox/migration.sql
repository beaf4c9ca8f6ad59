-- Keep apostrophes and semicolons out of comments: the Prisma driver-adapter engine splits scripts on them.
-- The transactional outbox: one row per event, written in the business transaction, published by the relay.
-- status: 0 pending, 1 sent (broker confirmed), 2 done (a downstream reply carried its id), 9 failed.
CREATE TABLE "outbox" (
    "id" BIGSERIAL NOT NULL,
    "message_id" UUID NOT NULL,
    "event_type" TEXT NOT NULL,
    "aggregate_type" TEXT NOT NULL,
    "aggregate_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "schema_version" INTEGER NOT NULL DEFAULT 1,
    "headers" JSONB NOT NULL DEFAULT '{}',
    "status" SMALLINT NOT NULL DEFAULT 0,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sent_at" TIMESTAMPTZ(3),
    "done_at" TIMESTAMPTZ(3),
    "republished" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "outbox_message_id_key" ON "outbox"("message_id");

-- The claim reads only pending rows: a partial index keeps its cost proportional to the backlog,
-- not to the history of sent and done rows. The lease of a claimed row is its next_attempt_at moved forward.
CREATE INDEX "outbox_pending_due_idx" ON "outbox"("next_attempt_at", "id") WHERE "status" = 0;
-- Reconciliation scans sent-but-not-done rows by age, the archiver scans done rows by age.
CREATE INDEX "outbox_sent_age_idx" ON "outbox"("sent_at") WHERE "status" = 1;
CREATE INDEX "outbox_done_age_idx" ON "outbox"("done_at") WHERE "status" = 2;
-- Operators list and redrive failed rows.
CREATE INDEX "outbox_failed_idx" ON "outbox"("id") WHERE "status" = 9;

-- Done rows older than the retention move here in small batches, pruned after its own retention.
CREATE TABLE "outbox_archive" (
    "id" BIGINT NOT NULL,
    "message_id" UUID NOT NULL,
    "event_type" TEXT NOT NULL,
    "aggregate_type" TEXT NOT NULL,
    "aggregate_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "schema_version" INTEGER NOT NULL,
    "headers" JSONB NOT NULL,
    "status" SMALLINT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "sent_at" TIMESTAMPTZ(3),
    "done_at" TIMESTAMPTZ(3),
    "republished" INTEGER NOT NULL DEFAULT 0,
    "archived_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbox_archive_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "outbox_archive_archived_at_idx" ON "outbox_archive"("archived_at");

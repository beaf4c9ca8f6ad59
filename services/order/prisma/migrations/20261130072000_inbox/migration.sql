-- Inbox: one row per (consumer, message id) a consumer has applied, written in the same transaction as
-- the business effect. The primary key is the deduplication: a second insert of the same pair waits for
-- the first transaction and then does nothing.
CREATE TABLE "inbox" (
    "consumer" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "message_type" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbox_pkey" PRIMARY KEY ("consumer","message_id")
);

-- Cleanup deletes by age in batches.
CREATE INDEX "inbox_received_at_idx" ON "inbox"("received_at");

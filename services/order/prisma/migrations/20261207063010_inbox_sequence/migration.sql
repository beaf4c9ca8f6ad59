-- Keep apostrophes and semicolons out of comments: the Prisma driver-adapter engine splits scripts on them.
-- The last sequence number each consumer applied per ordered stream (x-ordering-key, x-sequence). A message
-- takes its turn only when its number is the next one: a lower one is a copy and is skipped, a higher one
-- waits for the messages before it. The row is updated in the transaction of the effect it allows.
CREATE TABLE "inbox_sequence" (
    "consumer" TEXT NOT NULL,
    "ordering_key" TEXT NOT NULL,
    "last" BIGINT NOT NULL,
    "applied_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbox_sequence_pkey" PRIMARY KEY ("consumer","ordering_key")
);

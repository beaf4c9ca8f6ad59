-- Keep apostrophes and semicolons out of comments: the Prisma driver-adapter engine splits scripts on them.
-- Ordered streams: an event type the contracts declare ordered carries its aggregate as an ordering key,
-- and each of its rows a sequence number per key. The relay publishes only the oldest open row of a key.
ALTER TABLE "outbox" ADD COLUMN "ordering_key" TEXT, ADD COLUMN "sequence" BIGINT;
ALTER TABLE "outbox_archive" ADD COLUMN "ordering_key" TEXT, ADD COLUMN "sequence" BIGINT;
ALTER TABLE "outbox" ALTER COLUMN "ordering_key" SET STATISTICS 10, ALTER COLUMN "sequence" SET STATISTICS 10;

-- The last sequence number given out per key. A writer takes the next one under this row lock, which it
-- holds until it commits: a later number never commits before an earlier one, and a rolled-back write
-- gives its number back, so a consumer that sees a gap knows a message is missing.
CREATE TABLE "outbox_sequence" (
    "ordering_key" TEXT NOT NULL,
    "last" BIGINT NOT NULL,

    CONSTRAINT "outbox_sequence_pkey" PRIMARY KEY ("ordering_key")
);

-- The claim asks whether an older row of the same key is still open (pending or failed).
CREATE INDEX "outbox_ordered_open_idx" ON "outbox"("ordering_key", "sequence") WHERE "status" IN (0, 9);

-- Every insert path (one row, a batch, a row leased at insert, a write gated in one statement) gets its
-- numbers here, in insert order. Unordered rows never call the function.
CREATE FUNCTION "outbox_next_sequence"() RETURNS trigger LANGUAGE plpgsql AS '
BEGIN
  INSERT INTO outbox_sequence AS s (ordering_key, last) VALUES (NEW.ordering_key, 1)
    ON CONFLICT (ordering_key) DO UPDATE SET last = s.last + 1
    RETURNING s.last INTO NEW.sequence;
  RETURN NEW;
END';

CREATE TRIGGER "outbox_sequence_on_insert" BEFORE INSERT ON "outbox"
  FOR EACH ROW WHEN (NEW."ordering_key" IS NOT NULL) EXECUTE FUNCTION "outbox_next_sequence"();

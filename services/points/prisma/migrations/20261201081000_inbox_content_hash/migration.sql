-- The sha256 of the body a consumer applied under a message id. A later message with the same id and
-- another body is still skipped (the first one was applied), but no longer silently: the consumer
-- compares the two hashes, logs both and counts it. NULL for rows written before this column existed.
ALTER TABLE "inbox" ADD COLUMN "content_hash" TEXT;

-- No statement filters on a history entry detail: ANALYZE need not sort its jsonb (issue 11, as for the
-- outbox bodies).
ALTER TABLE "order_history" ALTER COLUMN "detail" SET STATISTICS 0;

-- No statement filters on the lines a reservation holds: ANALYZE need not sort their jsonb (issue 11, as
-- for the outbox bodies).
ALTER TABLE "reservations" ALTER COLUMN "lines" SET STATISTICS 0;

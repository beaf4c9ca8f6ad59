-- How many reconciliation passes repaired this order. Past the configured bound the order is reported
-- (an alert), not repaired again: a step that failed for good would only refill the parking lot.
ALTER TABLE "orders" ADD COLUMN "reconcile_repairs" INTEGER NOT NULL DEFAULT 0;

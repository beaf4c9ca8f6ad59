-- How many reconciliation passes repaired this order in its current status (reconcile_repairs_status).
-- Past the configured bound the order is reported (an alert), not repaired again: a step that failed for
-- good would only refill the parking lot. A new status starts the count again.
ALTER TABLE "orders" ADD COLUMN "reconcile_repairs" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "orders" ADD COLUMN "reconcile_repairs_status" TEXT;

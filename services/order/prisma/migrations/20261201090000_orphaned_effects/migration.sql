-- Reconciliation in the other direction: effects in inventory or points whose order does not exist here
-- (a forged event, or a publish that escaped a rolled-back transaction). Each is recorded, reversed with
-- an order.cancelled, and reported once the bound of repairs is reached.
CREATE TABLE "orphaned_effects" (
    "order_id" TEXT NOT NULL,
    "customer_id" TEXT,
    "sources" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "repairs" INTEGER NOT NULL DEFAULT 0,
    "found_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_repair_at" TIMESTAMPTZ(3),
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "orphaned_effects_pkey" PRIMARY KEY ("order_id")
);

-- How far each peer has been scanned (keyset position in its effects by creation).
CREATE TABLE "reconcile_cursors" (
    "name" TEXT NOT NULL,
    "after_at" TIMESTAMPTZ(3) NOT NULL,
    "after_id" TEXT NOT NULL,

    CONSTRAINT "reconcile_cursors_pkey" PRIMARY KEY ("name")
);

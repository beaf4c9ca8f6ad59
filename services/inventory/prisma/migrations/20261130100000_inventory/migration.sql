-- The inventory service's tables (the outbox and inbox come from their packages' migrations).
CREATE TABLE "stock" (
    "sku" TEXT NOT NULL,
    "available" INTEGER NOT NULL,
    "reserved" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stock_pkey" PRIMARY KEY ("sku"),
    -- Stock never goes negative, whatever a handler does: the database refuses it.
    CONSTRAINT "stock_available_check" CHECK ("available" >= 0),
    CONSTRAINT "stock_reserved_check" CHECK ("reserved" >= 0)
);

CREATE TABLE "reservations" (
    "order_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "lines" JSONB NOT NULL DEFAULT '[]',
    "reply_message_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reservations_pkey" PRIMARY KEY ("order_id"),
    CONSTRAINT "reservations_status_check" CHECK ("status" IN ('RESERVED', 'REJECTED', 'RELEASED'))
);

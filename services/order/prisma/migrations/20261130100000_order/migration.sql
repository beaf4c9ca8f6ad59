-- The order service's tables (the outbox and inbox come from their packages' migrations).
CREATE TABLE "orders" (
    "id" UUID NOT NULL,
    "customer_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "total" INTEGER NOT NULL,
    "points_granted" INTEGER,
    "cancel_reason" TEXT,
    "created_message_id" UUID NOT NULL,
    "confirmed_message_id" UUID,
    "cancelled_message_id" UUID,
    "cancel_acks" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "correlation_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "orders_status_check" CHECK ("status" IN ('PENDING', 'CONFIRMED', 'CANCELLED')),
    CONSTRAINT "orders_total_check" CHECK ("total" >= 0)
);
CREATE INDEX "orders_status_created_at_id_idx" ON "orders"("status", "created_at", "id");

CREATE TABLE "order_lines" (
    "order_id" UUID NOT NULL,
    "line_no" INTEGER NOT NULL,
    "sku" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL,
    "unit_price" INTEGER NOT NULL,

    CONSTRAINT "order_lines_pkey" PRIMARY KEY ("order_id", "line_no"),
    CONSTRAINT "order_lines_quantity_check" CHECK ("quantity" >= 1),
    CONSTRAINT "order_lines_unit_price_check" CHECK ("unit_price" >= 0),
    CONSTRAINT "order_lines_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

CREATE TABLE "order_history" (
    "id" BIGSERIAL NOT NULL,
    "order_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "event" TEXT NOT NULL,
    "detail" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "order_history_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "order_history_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
CREATE INDEX "order_history_order_id_id_idx" ON "order_history"("order_id", "id");

CREATE TABLE "idempotency_keys" (
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "order_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("key")
);

-- The points service's tables (the outbox and inbox come from their packages' migrations).
CREATE TABLE "accounts" (
    "customer_id" TEXT NOT NULL,
    "balance" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("customer_id")
);

CREATE TABLE "grants" (
    "order_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "points" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "reply_message_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "grants_pkey" PRIMARY KEY ("order_id"),
    CONSTRAINT "grants_status_check" CHECK ("status" IN ('GRANTED', 'REVERSED')),
    CONSTRAINT "grants_points_check" CHECK ("points" >= 0)
);
CREATE INDEX "grants_customer_id_idx" ON "grants"("customer_id");

-- Reconciliation pages through reservations by status in creation order, looking for ones whose order
-- does not exist: this index serves that keyset scan.
CREATE INDEX "reservations_status_created_at_order_id_idx" ON "reservations"("status", "created_at", "order_id");

// inventory.stock-changed: every transaction that moves stock writes, for each SKU it moved, the level
// it left, in the same transaction. The contracts declare the type ordered by SKU, so the outbox numbers
// these rows per SKU and a reader applies them in the order they were written (docs/ordering.md).
import type { Enqueue } from "@orderflow/service-runtime";

export interface StockLevel {
  sku: string;
  available: number;
  reserved: number;
}

/**
 * One event per SKU, in SKU order (the order every writer locks stock in). The saga's correlation id, when
 * a saga's step moved the stock; no causation id: a level is not a reply to the message that moved it.
 */
export async function publishLevels(enqueue: Enqueue, levels: StockLevel[], correlationId?: string) {
  for (const l of [...levels].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0))) {
    await enqueue({
      eventType: "inventory.stock-changed",
      aggregateType: "stock",
      aggregateId: l.sku,
      payload: { sku: l.sku, available: l.available, reserved: l.reserved },
      ...(correlationId ? { correlationId } : {}),
    });
  }
}

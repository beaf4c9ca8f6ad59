// Black-box helpers for the inventory service's tests: the shared kit (testkit/src/service-kit.ts) opened
// on inventory, plus its own effects read through the HTTP API (stock, reservations).
import { randomUUID } from "node:crypto";
import type { EventPayload } from "@orderflow/contracts";
import { api, openService, runId, type ServiceUnderTest } from "@orderflow/testkit/service-kit.ts";

export { eventually } from "@orderflow/testkit/eventually.ts";
export * from "@orderflow/testkit/service-kit.ts";

export type Inventory = ServiceUnderTest;

/** Events go straight to inventory's work queue; close() deletes the test's reservations and SKUs. */
export const openInventory = (): Promise<Inventory> =>
  openService({
    service: "inventory",
    queue: "inventory.order-events",
    cleanup: {
      orders: { table: "reservations", column: "order_id" },
      keys: { table: "stock", column: "sku" },
    },
  });

export async function setStock(inv: Inventory, sku: string, available: number): Promise<void> {
  inv.created.keys.add(sku);
  const r = await api(inv.url, "PUT", `/stock/${encodeURIComponent(sku)}`, { available });
  if (r.status !== 200) throw new Error(`PUT /stock/${sku}: ${r.status} ${JSON.stringify(r.body)}`);
}

export async function stockOf(inv: Inventory, sku: string): Promise<{ available: number; reserved: number }> {
  const r = await api(inv.url, "GET", `/stock/${encodeURIComponent(sku)}`);
  if (r.status !== 200) throw new Error(`GET /stock/${sku}: ${r.status} ${JSON.stringify(r.body)}`);
  return { available: r.body.available, reserved: r.body.reserved };
}

/** The reservation decided for an order, or undefined while there is none (404). */
export async function reservationOf(inv: Inventory, orderId: string) {
  const r = await api(inv.url, "GET", `/reservations/${encodeURIComponent(orderId)}`);
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(`GET /reservations/${orderId}: ${r.status}`);
  return r.body as { orderId: string; status: string; reason: string | null; lines: unknown };
}

/** An order.created payload; the order id is a fresh UUID (the order service keys orders by UUID). */
export function orderCreated(
  lines: { sku: string; quantity: number; unitPrice?: number }[],
  customerId = `inv-test-${runId()}`,
): EventPayload<"order.created"> {
  const full = lines.map((l) => ({ sku: l.sku, quantity: l.quantity, unitPrice: l.unitPrice ?? 1_000 }));
  return {
    orderId: randomUUID(),
    customerId,
    lines: full,
    total: full.reduce((t, l) => t + l.quantity * l.unitPrice, 0),
    createdAt: new Date().toISOString(),
  };
}

// Black-box helpers for the points service's tests: the shared kit (testkit/src/service-kit.ts) opened on
// points, plus its own effects read through the HTTP API (balances, grants).
import { randomUUID } from "node:crypto";
import type { EventPayload } from "@orderflow/contracts";
import { api, openService, runId, type ServiceUnderTest } from "@orderflow/testkit/service-kit.ts";

export { eventually } from "@orderflow/testkit/eventually.ts";
export * from "@orderflow/testkit/service-kit.ts";

export type Points = ServiceUnderTest;

/** Events go straight to points' work queue; close() deletes the test's grants and customers' accounts. */
export const openPoints = (): Promise<Points> =>
  openService({
    service: "points",
    queue: "points.order-events",
    cleanup: {
      orders: { table: "grants", column: "order_id" },
      keys: { table: "accounts", column: "customer_id" },
    },
    keyOf: (payload) => (payload as { customerId: string }).customerId,
  });

/** A customer's balance and grants (a customer never seen has balance 0 and no grants). */
export async function pointsOf(svc: Points, customerId: string) {
  const r = await api(svc.url, "GET", `/points/${encodeURIComponent(customerId)}`);
  if (r.status !== 200) throw new Error(`GET /points/${customerId}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as {
    customerId: string;
    balance: number;
    grants: { orderId: string; customerId: string; points: number; status: string }[];
  };
}

/** The grant recorded for an order, or undefined while there is none (404). */
export async function grantOf(svc: Points, orderId: string) {
  const r = await api(svc.url, "GET", `/grants/${encodeURIComponent(orderId)}`);
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(`GET /grants/${orderId}: ${r.status}`);
  return r.body as { orderId: string; customerId: string; points: number; status: string };
}

/** An inventory.reserved payload (v2, as inventory writes it) for a fresh order and customer: what points grants on. */
export function orderReserved(
  total: number,
  customerId = `pts-${runId()}`,
): Extract<EventPayload<"inventory.reserved">, { customerId: string }> {
  return { orderId: randomUUID(), lines: [{ sku: "SKU-1", quantity: 1 }], customerId, total };
}

/** An order.confirmed payload (asked for a v1 reservation) for a fresh order (UUID: the order service keys orders by UUID) and customer. */
export function orderConfirmed(
  total: number,
  customerId = `pts-${runId()}`,
): EventPayload<"order.confirmed"> {
  return { orderId: randomUUID(), customerId, total };
}

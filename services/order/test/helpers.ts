// Helpers for the saga tests: they run against the services that `pnpm stack up` started and read the
// three databases as the admin to check what the APIs claim. The generic parts (eventually, api, runId)
// come from the shared kit, @orderflow/testkit.
import { randomUUID } from "node:crypto";
import { openStack, type ServiceName, type Stack } from "@orderflow/infra";
import { adminPool, api, serviceBase, serviceReady } from "@orderflow/testkit/service-kit.ts";
import type pg from "pg";

export { eventually } from "@orderflow/testkit/eventually.ts";
export {
  adminHeaders,
  api,
  inboundEvent,
  inRolledBack,
  runId,
  stepRecorder,
} from "@orderflow/testkit/service-kit.ts";

export interface Saga {
  stack: Stack;
  url: Record<ServiceName, string>;
  db: Record<ServiceName, pg.Pool>;
  close(): Promise<void>;
}

export async function openSaga(): Promise<Saga> {
  const stack = openStack(undefined, false);
  const url = {
    order: serviceBase(stack, "order"),
    inventory: serviceBase(stack, "inventory"),
    points: serviceBase(stack, "points"),
  };
  for (const svc of ["order", "inventory", "points"] as const) await serviceReady(svc, url[svc], 30_000);
  const pool = (svc: ServiceName) => adminPool(stack, svc);
  const db = { order: pool("order"), inventory: pool("inventory"), points: pool("points") };
  return {
    stack,
    url,
    db,
    close: async () => {
      await Promise.all(Object.values(db).map((p) => p.end()));
    },
  };
}

export interface Line {
  sku: string;
  quantity: number;
  unitPrice: number;
}

export function placeOrder(saga: Saga, customerId: string, lines: Line[], key = randomUUID()) {
  return api(saga.url.order, "POST", "/orders", { customerId, lines }, { "idempotency-key": key });
}

export async function setStock(saga: Saga, sku: string, available: number): Promise<void> {
  const r = await api(saga.url.inventory, "PUT", `/stock/${encodeURIComponent(sku)}`, { available });
  if (r.status !== 200) throw new Error(`PUT /stock/${sku}: ${r.status} ${JSON.stringify(r.body)}`);
}

/** Orders that reached a final state: CONFIRMED with its points recorded, or CANCELLED with both acknowledgements. */
export async function finalOrders(saga: Saga, ids: string[]) {
  const r = await saga.db.order.query<{
    id: string;
    status: string;
    total: number;
    customer_id: string;
    points_granted: number | null;
  }>(
    `SELECT id, status, total, customer_id, points_granted FROM orders
      WHERE id = ANY($1::uuid[])
        AND ((status = 'CONFIRMED' AND points_granted IS NOT NULL) OR (status = 'CANCELLED' AND cardinality(cancel_acks) = 0))`,
    [ids],
  );
  return r.rows;
}

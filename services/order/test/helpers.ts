// Helpers for the saga tests: they run against the services that `pnpm stack up` started and read the
// three databases as the admin to check what the APIs claim.
import { randomUUID } from "node:crypto";
import { adminUrl, databaseName, openStack, type ServiceName, type Stack } from "@orderflow/infra";
import pg from "pg";

export interface Saga {
  stack: Stack;
  url: Record<ServiceName, string>;
  db: Record<ServiceName, pg.Pool>;
  close(): Promise<void>;
}

export async function openSaga(): Promise<Saga> {
  const stack = openStack(undefined, false);
  const url = {
    order: `http://127.0.0.1:${stack.layout.servicePorts.order}`,
    inventory: `http://127.0.0.1:${stack.layout.servicePorts.inventory}`,
    points: `http://127.0.0.1:${stack.layout.servicePorts.points}`,
  };
  // A service restarted by an earlier test (or by its supervisor) may need a few seconds.
  for (const [svc, u] of Object.entries(url)) {
    await eventually(
      `the ${svc} service to be ready at ${u} (is the stack up? \`pnpm stack up\`)`,
      () =>
        fetch(`${u}/health/ready`).then(
          (r) => (r.ok ? true : undefined),
          () => undefined,
        ),
      30_000,
    );
  }
  const pool = (svc: ServiceName) =>
    new pg.Pool({ connectionString: adminUrl(stack.pg, databaseName(svc)), max: 3 });
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

export async function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies of many shapes; assertions check them
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

export function placeOrder(saga: Saga, customerId: string, lines: Line[], key = randomUUID()) {
  return api(saga.url.order, "POST", "/orders", { customerId, lines }, { "idempotency-key": key });
}

export async function setStock(saga: Saga, sku: string, available: number): Promise<void> {
  const r = await api(saga.url.inventory, "PUT", `/stock/${encodeURIComponent(sku)}`, { available });
  if (r.status !== 200) throw new Error(`PUT /stock/${sku}: ${r.status} ${JSON.stringify(r.body)}`);
}

/** Polls until `check` returns a value, or fails after the deadline (never a fixed sleep). */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
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

export const runId = () => randomUUID().slice(0, 8);

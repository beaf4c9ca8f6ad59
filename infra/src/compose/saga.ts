// `pnpm compose saga`: one order carried through the compose stack's saga from the host, as a user would
// with curl: stock set, order placed, then polled until CONFIRMED with its points. Its id can be
// recorded, and `--verify` later reads every recorded order back (after a down and up: the volumes kept them).
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { waitFor } from "../proc.ts";

export interface SagaUrls {
  order: string;
  inventory: string;
}

export interface RecordedOrder {
  id: string;
  status: string;
  pointsGranted: number | null;
}

interface OrderView {
  id: string;
  status: string;
  pointsGranted?: number | null;
}

async function json<T>(url: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(url, {
    ...init,
    headers: { "content-type": "application/json", ...(init.headers ?? {}) },
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as T };
}

const readOrder = (urls: SagaUrls, id: string) =>
  json<OrderView>(`${urls.order}/orders/${encodeURIComponent(id)}`);

/** Places one order of 2 x 12.50 and waits (bounded) until the saga has confirmed it. */
export async function carryOrder(urls: SagaUrls, timeoutMs = 60_000): Promise<RecordedOrder> {
  const sku = `SAGA-${randomUUID().slice(0, 8)}`;
  const stock = await json(`${urls.inventory}/stock/${sku}`, {
    method: "PUT",
    body: JSON.stringify({ available: 10 }),
  });
  if (stock.status >= 300)
    throw new Error(`PUT /stock/${sku}: HTTP ${stock.status} ${JSON.stringify(stock.body)}`);
  const placed = await json<OrderView>(`${urls.order}/orders`, {
    method: "POST",
    headers: { "idempotency-key": randomUUID() },
    body: JSON.stringify({
      customerId: `saga-${sku.toLowerCase()}`,
      lines: [{ sku, quantity: 2, unitPrice: 1250 }],
    }),
  });
  if (placed.status >= 300 || !placed.body.id)
    throw new Error(`POST /orders: HTTP ${placed.status} ${JSON.stringify(placed.body)}`);
  const id = placed.body.id;
  let last: OrderView = placed.body;
  try {
    await waitFor(
      `order ${id} to be CONFIRMED`,
      async () => {
        last = (await readOrder(urls, id)).body;
        return last.status === "CONFIRMED" && typeof last.pointsGranted === "number";
      },
      { timeoutMs, intervalMs: 250 },
    );
  } catch {
    throw new Error(
      `order ${id} is ${last.status} after ${timeoutMs / 1000} s, not CONFIRMED with its points`,
    );
  }
  return { id, status: last.status, pointsGranted: last.pointsGranted ?? null };
}

export function recordOrder(file: string, o: RecordedOrder): void {
  fs.appendFileSync(file, `${JSON.stringify(o)}\n`);
}

/** Every recorded order read back: each must exist with the status and points it had. */
export async function verifyOrders(urls: SagaUrls, file: string): Promise<string[]> {
  if (!fs.existsSync(file))
    return [`${file}: no such file (record orders first: pnpm compose saga --record FILE)`];
  const recorded = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RecordedOrder);
  if (recorded.length === 0) return [`${file} records no order`];
  const wrong: string[] = [];
  for (const r of recorded) {
    const now = await readOrder(urls, r.id);
    if (now.status !== 200) wrong.push(`${r.id}: HTTP ${now.status}`);
    else if (now.body.status !== r.status || (now.body.pointsGranted ?? null) !== r.pointsGranted)
      wrong.push(
        `${r.id}: ${now.body.status} with ${now.body.pointsGranted} points, was ${r.status} with ${r.pointsGranted}`,
      );
  }
  return wrong;
}

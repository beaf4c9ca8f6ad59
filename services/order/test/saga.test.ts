// The order saga end to end on the local stack: 300 orders over 20 SKUs, some beyond stock.
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  adminHeaders,
  api,
  eventually,
  finalOrders,
  type Line,
  openSaga,
  placeOrder,
  runId,
  type Saga,
  setStock,
} from "./helpers.ts";

let saga: Saga;
beforeAll(async () => {
  saga = await openSaga();
});
afterAll(async () => {
  await saga?.close();
});

const pointsFor = (cents: number) => Math.floor(cents / 100);

test("300 orders over 20 SKUs end CONFIRMED with points or CANCELLED, with stock and points conserved", async () => {
  const run = runId();
  const skus = Array.from({ length: 20 }, (_, i) => `e2e-${run}-sku-${i}`);
  const initial = new Map(skus.map((sku, i) => [sku, 10 + (i % 5) * 5])); // 10..30 units: some orders will not fit
  for (const [sku, n] of initial) await setStock(saga, sku, n);

  // A fixed pseudo-random sequence, so a failure can be replayed.
  let seed = 42;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const orders = Array.from({ length: 300 }, (_, i) => ({
    customerId: `e2e-${run}-cust-${i % 15}`,
    lines: Array.from(
      { length: 1 + rnd(3) },
      (): Line => ({
        sku: skus[rnd(skus.length)] as string,
        quantity: 1 + rnd(4),
        unitPrice: 99 + rnd(5_000),
      }),
    ),
  }));

  const ids: string[] = [];
  for (let i = 0; i < orders.length; i += 20) {
    const batch = await Promise.all(
      orders.slice(i, i + 20).map((o) => placeOrder(saga, o.customerId, o.lines)),
    );
    for (const r of batch) {
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
  }

  const final = await eventually(
    "every order in a final state",
    async () => {
      const rows = await finalOrders(saga, ids);
      return rows.length === ids.length ? rows : undefined;
    },
    { timeoutMs: 120_000 },
  );
  const confirmed = final.filter((o) => o.status === "CONFIRMED");
  expect(confirmed.length).toBeGreaterThan(0);
  expect(final.length - confirmed.length).toBeGreaterThan(0); // some were beyond stock

  // Stock: initial - confirmed quantities, never negative; reserved = confirmed quantities.
  const confirmedIds = new Set(confirmed.map((o) => o.id));
  const lines = await saga.db.order.query<{ order_id: string; sku: string; quantity: number }>(
    `SELECT order_id, sku, quantity FROM order_lines WHERE order_id = ANY($1::uuid[])`,
    [ids],
  );
  const taken = new Map<string, number>();
  for (const l of lines.rows)
    if (confirmedIds.has(l.order_id)) taken.set(l.sku, (taken.get(l.sku) ?? 0) + l.quantity);
  const stock = await saga.db.inventory.query<{ sku: string; available: number; reserved: number }>(
    `SELECT sku, available, reserved FROM stock WHERE sku = ANY($1::text[])`,
    [skus],
  );
  for (const s of stock.rows) {
    expect({ sku: s.sku, available: s.available, reserved: s.reserved }).toEqual({
      sku: s.sku,
      available: (initial.get(s.sku) ?? 0) - (taken.get(s.sku) ?? 0),
      reserved: taken.get(s.sku) ?? 0,
    });
    expect(s.available).toBeGreaterThanOrEqual(0);
  }

  // Points: each balance is the rule over the customer's confirmed orders; each order records its points.
  const expected = new Map<string, number>();
  for (const o of confirmed) {
    expected.set(o.customer_id, (expected.get(o.customer_id) ?? 0) + pointsFor(o.total));
    expect(o.points_granted).toBe(pointsFor(o.total));
  }
  const balances = await saga.db.points.query<{ customer_id: string; balance: number }>(
    `SELECT customer_id, balance::float8 AS balance FROM accounts WHERE customer_id LIKE $1`,
    [`e2e-${run}-%`],
  );
  expect(Object.fromEntries(balances.rows.map((b) => [b.customer_id, b.balance]))).toEqual(
    Object.fromEntries(expected),
  );

  // Every outbox row of these orders, in all three services, is done.
  for (const db of [saga.db.order, saga.db.inventory, saga.db.points]) {
    const notDone = await eventually("every outbox row done", async () => {
      const r = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM outbox WHERE aggregate_id = ANY($1::text[]) AND status <> 2`,
        [ids],
      );
      return r.rows[0]?.n === "0" ? 0 : undefined;
    });
    expect(notDone).toBe(0);
  }
  // The order service's own invariant check (on demand here; it also runs on a schedule) agrees.
  const report = await api(saga.url.order, "GET", "/admin/invariants", undefined, adminHeaders(saga.stack));
  expect(report.status).toBe(200);
  expect(report.body).toMatchObject({ ok: expect.any(Boolean), settled: expect.any(Boolean) });
  const ours = (report.body.violations as { key: string }[]).filter((v) => v.key.startsWith(`e2e-${run}-`));
  expect(ours).toEqual([]);

  // One order.created each; no order.confirmed, since points grants on the reservation itself.
  const rows = await saga.db.order.query<{ created: number; confirmed: number }>(
    `SELECT count(*) FILTER (WHERE event_type = 'order.created')::int AS created,
            count(*) FILTER (WHERE event_type = 'order.confirmed')::int AS confirmed
       FROM outbox WHERE aggregate_id = ANY($1::text[])`,
    [ids],
  );
  expect(rows.rows[0]).toEqual({ created: ids.length, confirmed: 0 });
});

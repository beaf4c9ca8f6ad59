// Reads, as the database admin, everything the audit compares: orders, reservations, grants, balances,
// stock and the order service's read model of it, outbox and inbox rows of one run (by its order ids and
// prefix).
import { adminUrl, databaseName, type ServiceName, type Stack } from "@orderflow/infra";
import pg from "pg";
import type { RunLedger } from "./ledger.ts";

export interface Snapshot {
  orders: Map<
    string,
    {
      status: string;
      total: number;
      customerId: string;
      pointsGranted: number | null;
      cancelAcks: string[];
      /** How many times reconciliation re-sent something for this order. */
      reconcileRepairs: number;
    }
  >;
  orderLines: Map<string, { sku: string; quantity: number }[]>;
  reservations: Map<string, { status: string; lines: { sku: string; quantity: number }[] }>;
  grants: Map<string, { status: string; points: number; customerId: string }>;
  balances: Map<string, number>;
  stock: Map<string, { available: number; reserved: number }>;
  /** The order service's read model of stock (stock_levels, kept from inventory.stock-changed). */
  stockLevels: Map<string, { available: number; reserved: number; outOfOrder: number }>;
  outbox: Record<ServiceName, { status: number; n: number; attempts: number }[]>;
  inboxRows: Record<ServiceName, number>;
}

/** A short-lived admin connection to one service's database. */
export async function withDb<T>(s: Stack, svc: ServiceName, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl(s.pg, databaseName(svc)) });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export async function takeSnapshot(s: Stack, ledger: RunLedger): Promise<Snapshot> {
  const ids = ledger.orders.map((o) => o.orderId);
  const like = `${ledger.prefix}%`;
  const outboxBy = (c: pg.Client, key: string) =>
    c
      .query<{ status: number; n: string; attempts: string }>(
        `SELECT status, count(*) AS n, sum(attempts) AS attempts FROM outbox WHERE ${key} GROUP BY status`,
        key.includes("$1") ? [ids] : [],
      )
      .then((r) => r.rows.map((x) => ({ status: x.status, n: Number(x.n), attempts: Number(x.attempts) })));

  const order = await withDb(s, "order", async (c) => {
    const o = await c.query(
      `SELECT id, status, total, customer_id, points_granted, cancel_acks, reconcile_repairs
         FROM orders WHERE customer_id LIKE $1`,
      [like],
    );
    const l = await c.query(
      `SELECT l.order_id, l.sku, l.quantity FROM order_lines l JOIN orders o ON o.id = l.order_id WHERE o.customer_id LIKE $1`,
      [like],
    );
    const levels = await c.query(
      `SELECT sku, available, reserved, out_of_order FROM stock_levels WHERE sku LIKE $1`,
      [like],
    );
    return {
      o: o.rows,
      l: l.rows,
      levels: levels.rows,
      outbox: await outboxBy(c, "aggregate_id = ANY($1::text[])"),
    };
  });
  const inventory = await withDb(s, "inventory", async (c) => ({
    r: (
      await c.query(`SELECT order_id, status, lines FROM reservations WHERE order_id = ANY($1::text[])`, [
        ids,
      ])
    ).rows,
    stock: (await c.query(`SELECT sku, available, reserved FROM stock WHERE sku LIKE $1`, [like])).rows,
    outbox: await outboxBy(c, "aggregate_id = ANY($1::text[])"),
  }));
  const points = await withDb(s, "points", async (c) => ({
    g: (
      await c.query(`SELECT order_id, status, points, customer_id FROM grants WHERE customer_id LIKE $1`, [
        like,
      ])
    ).rows,
    b: (await c.query(`SELECT customer_id, balance FROM accounts WHERE customer_id LIKE $1`, [like])).rows,
    outbox: await outboxBy(c, "aggregate_id = ANY($1::text[])"),
  }));

  return snapshotOf({
    orders: order.o,
    lines: order.l,
    reservations: inventory.r,
    grants: points.g,
    balances: points.b,
    stock: inventory.stock,
    stockLevels: order.levels,
    outbox: { order: order.outbox, inventory: inventory.outbox, points: points.outbox },
  });
}

/** The rows a snapshot is made of, as the three databases give them. */
export interface SnapshotRows {
  orders: {
    id: string;
    status: string;
    total: number;
    customer_id: string;
    points_granted: number | null;
    cancel_acks: string[];
    reconcile_repairs: number;
  }[];
  lines: { order_id: string; sku: string; quantity: number }[];
  reservations: { order_id: string; status: string; lines: { sku: string; quantity: number }[] }[];
  grants: { order_id: string; status: string; points: number; customer_id: string }[];
  /** BIGINT arrives as text. */
  balances: { customer_id: string; balance: string | number }[];
  stock: { sku: string; available: number; reserved: number }[];
  stockLevels: { sku: string; available: number; reserved: number; out_of_order: number }[];
  outbox: Snapshot["outbox"];
}

/** Rows -> the snapshot the check reads (one shape for the lab's run audit and the control's audit). */
export function snapshotOf(r: SnapshotRows): Snapshot {
  const orderLines = new Map<string, { sku: string; quantity: number }[]>();
  for (const l of r.lines)
    orderLines.set(l.order_id, [...(orderLines.get(l.order_id) ?? []), { sku: l.sku, quantity: l.quantity }]);
  return {
    orders: new Map(
      r.orders.map((o) => [
        o.id,
        {
          status: o.status,
          total: o.total,
          customerId: o.customer_id,
          pointsGranted: o.points_granted,
          cancelAcks: o.cancel_acks,
          reconcileRepairs: o.reconcile_repairs,
        },
      ]),
    ),
    orderLines,
    reservations: new Map(r.reservations.map((x) => [x.order_id, { status: x.status, lines: x.lines }])),
    grants: new Map(
      r.grants.map((g) => [g.order_id, { status: g.status, points: g.points, customerId: g.customer_id }]),
    ),
    balances: new Map(r.balances.map((b) => [b.customer_id, Number(b.balance)])),
    stock: new Map(r.stock.map((x) => [x.sku, { available: x.available, reserved: x.reserved }])),
    stockLevels: new Map(
      r.stockLevels.map((x) => [
        x.sku,
        { available: x.available, reserved: x.reserved, outOfOrder: x.out_of_order },
      ]),
    ),
    outbox: r.outbox,
    inboxRows: { order: 0, inventory: 0, points: 0 },
  };
}

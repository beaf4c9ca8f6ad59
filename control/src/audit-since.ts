// GET /audit?since: the fault lab's audit (audit.ts' settle wait, check.ts' checker) over every order
// created since a time, for callers that kept no ledger of their own (a k6 run, a person at the
// console). The ledger is read from the order database, and the snapshot is scoped to those orders
// instead of the lab's run prefix.
//
// What the numbers can mean here:
// - `lost`: the order service commits an order before it answers 2xx, so every order a client was told
//   about is in this ledger; `lost` counts orders whose row vanished between the ledger read and the
//   snapshot (it must stay 0). Requests that failed are the client's own count (k6's checks), not this.
// - `unexpected`: reservations and grants made since `since` whose order does not exist in the order
//   database at all (a publish that escaped a rolled-back transaction, a forged event).
// - stock and points are checked only with a prefix (the lab's workload names customers `${prefix}c-N`
//   and SKUs `${prefix}sku-N`): without one, SKUs and customers are shared with orders before `since`.
//   With one, it should be unique to the run and `since` before its first order, since a SKU's reserved
//   units and a customer's balance include every order of theirs. The initial stock is what PUT
//   /stock set, available + reserved (conserved by every reservation and release).
// - `absorbed`: the services' counters since they started (there is no baseline for an arbitrary time).
import {
  adminUrl,
  databaseName,
  listQueues,
  SERVICE_NAMES,
  type ServiceName,
  type Stack,
  serviceUrlsInUse,
} from "@orderflow/infra";
import { type AuditResult, auditWith } from "@orderflow/lab/audit/audit.ts";
import { countViolations } from "@orderflow/lab/audit/check.ts";
import type { LedgerOrder, RunLedger } from "@orderflow/lab/audit/ledger.ts";
import { type Snapshot, snapshotOf } from "@orderflow/lab/audit/snapshot.ts";
import pg from "pg";

export interface AuditQuery {
  since: Date;
  /** Customer id or SKU prefix, as the fault lab's workload names them. */
  prefix?: string;
  /** Wait up to this long for every order to reach a final state first. */
  settleS: number;
}

export interface AuditSinceResult extends Omit<AuditResult, "violations"> {
  since: string;
  lost: number;
  duplicated: number;
  unfinished: number;
  unexpected: number;
  stuckOutbox: number;
  violations: AuditResult["violations"];
  /** What was checked: stock and points only with a prefix. */
  scope: { prefix: string | null; stock: boolean; points: boolean };
}

/** An audit reads every order of its window several times; beyond this, narrow `since` or give a prefix. */
export const MAX_AUDIT_ORDERS = 20_000;
export const MAX_SETTLE_S = 120;
export const PREFIX = /^[A-Za-z0-9.:_-]{1,64}$/;

export class AuditTooLargeError extends Error {}

/** Runs `fn` on a short-lived connection to one service's database (read access is enough). */
export type ReadDatabase = <T>(svc: ServiceName, fn: (c: pg.Client) => Promise<T>) => Promise<T>;

/** Where the audit reads: each service's database, its /metrics, the queues. */
export interface AuditSources {
  read: ReadDatabase;
  /** Every instance of every service, read when an audit runs (their counters add up). */
  serviceUrls: () => Promise<string[]>;
  listQueues: () => Promise<{ name: string; messages: number }[]>;
}

/** Each read on its own connection to the service's database URL. */
export function readFrom(databaseUrls: Record<ServiceName, string>): ReadDatabase {
  return async (svc, fn) => {
    const c = new pg.Client({ connectionString: databaseUrls[svc] });
    c.on("error", () => {}); // a PostgreSQL restart ends the connection; the query itself then fails
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end().catch(() => {});
    }
  };
}

/** The local stack's: its databases as the admin, its services on loopback, its management API. */
export function localAuditSources(s: Stack): AuditSources {
  const each = (f: (svc: ServiceName) => string) =>
    Object.fromEntries(SERVICE_NAMES.map((svc) => [svc, f(svc)])) as Record<ServiceName, string>;
  return {
    read: readFrom(each((svc) => adminUrl(s.pg, databaseName(svc)))),
    serviceUrls: async () => SERVICE_NAMES.flatMap((svc) => serviceUrlsInUse(s)[svc]),
    listQueues: () => listQueues(s.rabbit),
  };
}

const likePrefix = (p: string) => `${p.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Every order created at or after `since` (of the prefix, if any), with its lines and customer. */
async function readLedger(s: AuditSources, q: AuditQuery): Promise<RunLedger> {
  const like = q.prefix === undefined ? null : likePrefix(q.prefix);
  return s.read("order", async (c) => {
    const o = await c.query<{ id: string; customer_id: string; created_at: Date }>(
      `SELECT o.id, o.customer_id, o.created_at FROM orders o
        WHERE o.created_at >= $1
          AND ($2::text IS NULL OR o.customer_id LIKE $2
               OR EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = o.id AND l.sku LIKE $2))
        ORDER BY o.created_at LIMIT $3`,
      [q.since, like, MAX_AUDIT_ORDERS + 1],
    );
    if (o.rows.length > MAX_AUDIT_ORDERS)
      throw new AuditTooLargeError(
        `more than ${MAX_AUDIT_ORDERS} orders since ${q.since.toISOString()}: give a later since or a prefix`,
      );
    const ids = o.rows.map((r) => r.id);
    const l = await c.query<{ order_id: string; sku: string; quantity: number; unit_price: number }>(
      `SELECT order_id, sku, quantity, unit_price FROM order_lines WHERE order_id = ANY($1::uuid[])
        ORDER BY order_id, line_no`,
      [ids],
    );
    const lines = new Map<string, LedgerOrder["lines"]>();
    for (const r of l.rows)
      lines.set(r.order_id, [
        ...(lines.get(r.order_id) ?? []),
        { sku: r.sku, quantity: r.quantity, unitPrice: r.unit_price },
      ]);
    let initialStock: Record<string, number> = {};
    if (like !== null)
      initialStock = await s.read("inventory", async (inv) => {
        const r = await inv.query<{ sku: string; total: number }>(
          "SELECT sku, available + reserved AS total FROM stock WHERE sku LIKE $1",
          [like],
        );
        return Object.fromEntries(r.rows.map((x) => [x.sku, Number(x.total)]));
      });
    return {
      prefix: q.prefix ?? "",
      initialStock,
      orders: o.rows.map((r) => ({
        orderId: r.id,
        // The order database keeps keys apart from orders; the checker does not read them.
        idempotencyKey: "",
        customerId: r.customer_id,
        lines: lines.get(r.id) ?? [],
        acceptedAt: r.created_at.getTime(),
      })),
    };
  });
}

/** The lab's snapshot, scoped to the ledger's orders and to effects made since `since`. */
function scopedSnapshot(s: AuditSources, q: AuditQuery) {
  return async (ledger: RunLedger): Promise<Snapshot> => {
    const ids = ledger.orders.map((o) => o.orderId);
    const like = q.prefix === undefined ? null : likePrefix(q.prefix);
    const outboxOf = (c: pg.Client) =>
      c
        .query<{ status: number; n: string; attempts: string }>(
          `SELECT status, count(*) AS n, sum(attempts) AS attempts FROM outbox
            WHERE aggregate_id = ANY($1::text[]) GROUP BY status`,
          [ids],
        )
        .then((r) => r.rows.map((x) => ({ status: x.status, n: Number(x.n), attempts: Number(x.attempts) })));

    // The order database first. Every effect an order's state depends on commits in its peer before the
    // reply that moved the order leaves it, so peers read after the orders hold at least what those
    // states imply. Read the other way round, an order that went through its whole saga between the
    // reads looked confirmed without its reservation or its grant: a torn read, not a double effect.
    const order = await s.read("order", async (c) => {
      const o = await c.query<{
        id: string;
        status: string;
        total: number;
        customer_id: string;
        points_granted: number | null;
        cancel_acks: string[];
        reconcile_repairs: number;
      }>(
        `SELECT id, status, total, customer_id, points_granted, cancel_acks, reconcile_repairs
           FROM orders WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      const l = await c.query<{ order_id: string; sku: string; quantity: number }>(
        "SELECT order_id, sku, quantity FROM order_lines WHERE order_id = ANY($1::uuid[])",
        [ids],
      );
      const levels =
        like === null
          ? []
          : (
              await c.query<{ sku: string; available: number; reserved: number; out_of_order: number }>(
                "SELECT sku, available, reserved, out_of_order FROM stock_levels WHERE sku LIKE $1",
                [like],
              )
            ).rows;
      return { o: o.rows, l: l.rows, levels, outbox: await outboxOf(c) };
    });
    const inventory = await s.read("inventory", async (c) => ({
      r: (
        await c.query<{ order_id: string; status: string; lines: { sku: string; quantity: number }[] }>(
          `SELECT order_id, status, lines FROM reservations
            WHERE order_id = ANY($1::text[])
               OR (created_at >= $2 AND ($3::text IS NULL OR EXISTS (
                     SELECT 1 FROM jsonb_array_elements(lines) x WHERE x->>'sku' LIKE $3)))`,
          [ids, q.since, like],
        )
      ).rows,
      stock:
        like === null
          ? []
          : (
              await c.query<{ sku: string; available: number; reserved: number }>(
                "SELECT sku, available, reserved FROM stock WHERE sku LIKE $1",
                [like],
              )
            ).rows,
      outbox: await outboxOf(c),
    }));
    const points = await s.read("points", async (c) => ({
      g: (
        await c.query<{ order_id: string; status: string; points: number; customer_id: string }>(
          `SELECT order_id, status, points, customer_id FROM grants
            WHERE order_id = ANY($1::text[])
               OR (created_at >= $2 AND ($3::text IS NULL OR customer_id LIKE $3))`,
          [ids, q.since, like],
        )
      ).rows,
      b:
        like === null
          ? []
          : (
              await c.query<{ customer_id: string; balance: string }>(
                "SELECT customer_id, balance FROM accounts WHERE customer_id LIKE $1",
                [like],
              )
            ).rows,
      outbox: await outboxOf(c),
    }));

    const inLedger = new Set(ids);
    const strangers = [
      ...new Set([...inventory.r, ...points.g].map((x) => x.order_id).filter((id) => !inLedger.has(id))),
    ];
    // Effects of orders outside the window (created before `since`, or after the ledger was read)
    // are not strangers: only those whose order does not exist at all are (asked after the peers' reads,
    // so an order created meanwhile is found).
    const known =
      strangers.length === 0
        ? new Set<string>()
        : await s.read("order", async (c) => {
            const r = await c.query<{ id: string }>(
              "SELECT id::text AS id FROM orders WHERE id::text = ANY($1)",
              [strangers],
            );
            return new Set(r.rows.map((x) => x.id));
          });
    const keep = (id: string) => inLedger.has(id) || !known.has(id);

    return snapshotOf({
      orders: order.o,
      lines: order.l,
      reservations: inventory.r.filter((r) => keep(r.order_id)),
      grants: points.g.filter((g) => keep(g.order_id)),
      balances: points.b,
      stock: inventory.stock,
      stockLevels: order.levels,
      outbox: { order: order.outbox, inventory: inventory.outbox, points: points.outbox },
    });
  };
}

/**
 * The audit, with `settleS` covering a stack that is still healing as well as orders still moving: a
 * read that fails (a broker node or service not back yet after a fault's undo) is tried again, each
 * second, until the window ends. Without a window it fails at once.
 */
export async function auditSince(s: AuditSources, q: AuditQuery): Promise<AuditSinceResult> {
  const until = Date.now() + q.settleS * 1_000;
  for (;;) {
    try {
      return await auditOnce(s, { ...q, settleS: Math.max(0, (until - Date.now()) / 1_000) });
    } catch (e) {
      if (e instanceof AuditTooLargeError || Date.now() + 1_000 >= until) throw e;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}

async function auditOnce(s: AuditSources, q: AuditQuery): Promise<AuditSinceResult> {
  const ledger = await readLedger(s, q);
  const r = await auditWith({ snapshot: scopedSnapshot(s, q), listQueues: s.listQueues }, ledger, {
    settleTimeoutMs: q.settleS * 1_000,
    serviceUrls: await s.serviceUrls(),
  });
  // Without a prefix the balances were not read (customers span windows): no points check to report.
  const v = q.prefix === undefined ? { ...r.violations, points: [] } : r.violations;
  const violationCount = countViolations(v);
  return {
    since: q.since.toISOString(),
    ...r,
    violations: v,
    ok: violationCount === 0,
    violationCount,
    lost: v.lost.length,
    duplicated: v.duplicated.length,
    unfinished: v.unfinished.length,
    unexpected: v.unexpected.length,
    stuckOutbox: Object.values(v.stuckOutbox).reduce(
      (n, byStatus) => n + Object.values(byStatus).reduce((a, b) => a + b, 0),
      0,
    ),
    scope: { prefix: q.prefix ?? null, stock: q.prefix !== undefined, points: q.prefix !== undefined },
  };
}

// The ledger check, like a Jepsen checker: given what the API accepted and what the databases hold,
// list every violation. Pure: the same inputs always give the same verdict (and it is unit-tested).

import { pointsFor } from "@orderflow/contracts";
import type { RunLedger } from "./ledger.ts";
import type { Snapshot } from "./snapshot.ts";

export interface Violations {
  /** Accepted but missing from the order database. */
  lost: string[];
  /** Present but never reaching a final state (CONFIRMED with points, or CANCELLED acknowledged). */
  unfinished: { orderId: string; status: string }[];
  /** An effect applied more than once, or applied where the order says it must not be. */
  duplicated: { orderId: string; what: string }[];
  /** Effects (reservations, grants, orders) without an accepted order behind them. */
  unexpected: { id: string; what: string }[];
  /** Outbox rows still pending (0), sent-awaiting-reply (1) or failed (9), per service. */
  stuckOutbox: Record<string, Record<string, number>>;
  stock: { sku: string; problem: string; expected: number; actual: number }[];
  /**
   * The order service's read model of stock against inventory's stock, per SKU of the run: a level that
   * differs, or levels applied out of their stream's order (inventory.stock-changed is ordered by SKU).
   */
  readModel: { sku: string; problem: string; expected: number; actual: number }[];
  points: { customerId: string; expected: number; actual: number }[];
}

export interface Verdict {
  ok: boolean;
  /** repaired: orders reconciliation re-sent something for (at least once). */
  orders: { accepted: number; confirmed: number; cancelled: number; repaired: number };
  /** The run's outbox rows across the three services: how many in each status, and every attempt spent. */
  outbox: { byStatus: Record<string, number>; attempts: number };
  violations: Violations;
  violationCount: number;
}

export function checkLedger(ledger: RunLedger, snap: Snapshot): Verdict {
  const v: Violations = {
    lost: [],
    unfinished: [],
    duplicated: [],
    unexpected: [],
    stuckOutbox: {},
    stock: [],
    readModel: [],
    points: [],
  };
  const accepted = new Set(ledger.orders.map((o) => o.orderId));
  const taken = new Map<string, number>();
  const expectedPoints = new Map<string, number>();
  let confirmed = 0;
  let cancelled = 0;
  let repaired = 0;

  for (const o of ledger.orders) {
    const row = snap.orders.get(o.orderId);
    if (!row) {
      v.lost.push(o.orderId);
      continue;
    }
    if (row.reconcileRepairs > 0) repaired++;
    const reservation = snap.reservations.get(o.orderId);
    const grant = snap.grants.get(o.orderId);
    if (row.status === "CONFIRMED") {
      confirmed++;
      if (row.pointsGranted === null)
        v.unfinished.push({ orderId: o.orderId, status: "CONFIRMED without points" });
      for (const l of o.lines) taken.set(l.sku, (taken.get(l.sku) ?? 0) + l.quantity);
      expectedPoints.set(o.customerId, (expectedPoints.get(o.customerId) ?? 0) + pointsFor(row.total));
      if (reservation?.status !== "RESERVED")
        v.duplicated.push({
          orderId: o.orderId,
          what: `confirmed but reservation ${reservation?.status ?? "missing"}`,
        });
      if (grant?.status !== "GRANTED")
        v.duplicated.push({ orderId: o.orderId, what: `confirmed but grant ${grant?.status ?? "missing"}` });
      else if (grant.points !== pointsFor(row.total))
        v.duplicated.push({
          orderId: o.orderId,
          what: `granted ${grant.points} points, rule says ${pointsFor(row.total)}`,
        });
    } else if (row.status === "CANCELLED") {
      cancelled++;
      if (row.cancelAcks.length > 0)
        v.unfinished.push({ orderId: o.orderId, status: `CANCELLED awaiting ${row.cancelAcks.join(", ")}` });
      if (reservation?.status === "RESERVED")
        v.duplicated.push({ orderId: o.orderId, what: "cancelled but stock still reserved" });
      if (grant?.status === "GRANTED")
        v.duplicated.push({ orderId: o.orderId, what: "cancelled but points still granted" });
    } else {
      v.unfinished.push({ orderId: o.orderId, status: row.status });
    }
  }
  for (const id of snap.orders.keys())
    if (!accepted.has(id)) v.unexpected.push({ id, what: "order not in the ledger" });
  for (const id of snap.reservations.keys())
    if (!accepted.has(id)) v.unexpected.push({ id, what: "reservation without an accepted order" });
  for (const id of snap.grants.keys())
    if (!accepted.has(id)) v.unexpected.push({ id, what: "grant without an accepted order" });

  const outbox = { byStatus: {} as Record<string, number>, attempts: 0 };
  for (const rows of Object.values(snap.outbox))
    for (const r of rows) {
      outbox.byStatus[String(r.status)] = (outbox.byStatus[String(r.status)] ?? 0) + r.n;
      outbox.attempts += r.attempts;
    }
  for (const [svc, rows] of Object.entries(snap.outbox)) {
    const stuck = Object.fromEntries(rows.filter((r) => r.status !== 2).map((r) => [String(r.status), r.n]));
    if (Object.keys(stuck).length > 0) v.stuckOutbox[svc] = stuck;
  }

  for (const [sku, initial] of Object.entries(ledger.initialStock)) {
    const s = snap.stock.get(sku);
    const units = taken.get(sku) ?? 0;
    if (!s) {
      v.stock.push({ sku, problem: "missing", expected: initial, actual: 0 });
      continue;
    }
    if (s.available < 0 || s.reserved < 0)
      v.stock.push({ sku, problem: "negative", expected: 0, actual: Math.min(s.available, s.reserved) });
    if (s.available + s.reserved !== initial)
      v.stock.push({
        sku,
        problem: "not conserved (available + reserved)",
        expected: initial,
        actual: s.available + s.reserved,
      });
    if (s.reserved !== units)
      v.stock.push({
        sku,
        problem: "reserved differs from confirmed units",
        expected: units,
        actual: s.reserved,
      });
  }
  v.readModel.push(...readModelProblems(ledger, snap));
  const customers = new Set([...expectedPoints.keys(), ...snap.balances.keys()]);
  for (const c of customers) {
    const expected = expectedPoints.get(c) ?? 0;
    const actual = snap.balances.get(c) ?? 0;
    if (expected !== actual) v.points.push({ customerId: c, expected, actual });
  }
  const violationCount = countViolations(v);
  return {
    ok: violationCount === 0,
    orders: { accepted: ledger.orders.length, confirmed, cancelled, repaired },
    outbox,
    violations: v,
    violationCount,
  };
}

/** Every violation of every kind (a service with stuck outbox rows counts once). */
export function countViolations(v: Violations): number {
  return (
    v.lost.length +
    v.unfinished.length +
    v.duplicated.length +
    v.unexpected.length +
    Object.keys(v.stuckOutbox).length +
    v.stock.length +
    v.readModel.length +
    v.points.length
  );
}

/** The read model's differences from inventory's stock, and its out-of-order applications, per SKU. */
export function readModelProblems(ledger: RunLedger, snap: Snapshot): Violations["readModel"] {
  const out: Violations["readModel"] = [];
  // The run's SKUs: those it seeded, and any other it named with its prefix (a fault script's own).
  for (const sku of new Set([...Object.keys(ledger.initialStock), ...snap.stock.keys()])) {
    const s = snap.stock.get(sku);
    const level = snap.stockLevels.get(sku);
    if (!s) continue; // reported under stock
    if (!level) {
      out.push({ sku, problem: "no level in the read model", expected: s.available, actual: 0 });
      continue;
    }
    if (level.available !== s.available)
      out.push({
        sku,
        problem: "read model available differs",
        expected: s.available,
        actual: level.available,
      });
    if (level.reserved !== s.reserved)
      out.push({ sku, problem: "read model reserved differs", expected: s.reserved, actual: level.reserved });
    if (level.outOfOrder > 0)
      out.push({ sku, problem: "levels applied out of order", expected: 0, actual: level.outOfOrder });
  }
  return out;
}

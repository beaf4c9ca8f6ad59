// The ledger check on hand-made snapshots: each kind of damage is found, and a clean run has none.
import { describe, expect, test } from "vitest";
import { checkLedger } from "../src/audit/check.ts";
import type { RunLedger } from "../src/audit/ledger.ts";
import type { Snapshot } from "../src/audit/snapshot.ts";

const ledger: RunLedger = {
  prefix: "t-",
  initialStock: { "t-a": 10 },
  orders: [
    {
      orderId: "o1",
      idempotencyKey: "k1",
      customerId: "t-c",
      lines: [{ sku: "t-a", quantity: 3, unitPrice: 1_000 }],
      acceptedAt: 0,
    },
    {
      orderId: "o2",
      idempotencyKey: "k2",
      customerId: "t-c",
      lines: [{ sku: "t-a", quantity: 9, unitPrice: 1_000 }],
      acceptedAt: 0,
    },
  ],
};

function cleanSnapshot(): Snapshot {
  return {
    orders: new Map([
      [
        "o1",
        {
          status: "CONFIRMED",
          total: 3_000,
          customerId: "t-c",
          pointsGranted: 30,
          cancelAcks: [],
          reconcileRepairs: 1,
        },
      ],
      [
        "o2",
        {
          status: "CANCELLED",
          total: 9_000,
          customerId: "t-c",
          pointsGranted: null,
          cancelAcks: [],
          reconcileRepairs: 0,
        },
      ],
    ]),
    orderLines: new Map(),
    reservations: new Map([
      ["o1", { status: "RESERVED", lines: [{ sku: "t-a", quantity: 3 }] }],
      ["o2", { status: "REJECTED", lines: [] }],
    ]),
    grants: new Map([["o1", { status: "GRANTED", points: 30, customerId: "t-c" }]]),
    balances: new Map([["t-c", 30]]),
    stock: new Map([["t-a", { available: 7, reserved: 3 }]]),
    stockLevels: new Map([["t-a", { available: 7, reserved: 3, outOfOrder: 0 }]]),
    outbox: {
      order: [{ status: 2, n: 4, attempts: 4 }],
      inventory: [{ status: 2, n: 3, attempts: 3 }],
      points: [{ status: 2, n: 1, attempts: 1 }],
    },
    inboxRows: { order: 0, inventory: 0, points: 0 },
  };
}

test("a consistent run has no violations", () => {
  const v = checkLedger(ledger, cleanSnapshot());
  expect(v.violationCount).toBe(0);
  expect(v.orders).toEqual({ accepted: 2, confirmed: 1, cancelled: 1, repaired: 1 });
});

describe("each kind of damage is found", () => {
  test("an accepted order missing from the order database is lost", () => {
    const s = cleanSnapshot();
    s.orders.delete("o2");
    expect(checkLedger(ledger, s).violations.lost).toEqual(["o2"]);
  });

  test("stock applied twice breaks conservation and the confirmed-units check", () => {
    const s = cleanSnapshot();
    s.stock.set("t-a", { available: 4, reserved: 6 });
    expect(checkLedger(ledger, s).violations.stock.map((x) => x.problem)).toEqual([
      "reserved differs from confirmed units",
    ]);
    s.stock.set("t-a", { available: 4, reserved: 3 });
    expect(checkLedger(ledger, s).violations.stock.map((x) => x.problem)).toEqual([
      "not conserved (available + reserved)",
    ]);
  });

  test("points granted twice differ from the rule", () => {
    const s = cleanSnapshot();
    s.balances.set("t-c", 60);
    expect(checkLedger(ledger, s).violations.points).toEqual([
      { customerId: "t-c", expected: 30, actual: 60 },
    ]);
  });

  test("an effect without an accepted order is unexpected", () => {
    const s = cleanSnapshot();
    s.reservations.set("ghost", { status: "RESERVED", lines: [] });
    expect(checkLedger(ledger, s).violations.unexpected).toEqual([
      { id: "ghost", what: "reservation without an accepted order" },
    ]);
  });

  test("outbox rows pending or sent are stuck", () => {
    const s = cleanSnapshot();
    s.outbox.order = [
      { status: 2, n: 3, attempts: 3 },
      { status: 1, n: 1, attempts: 1 },
    ];
    expect(checkLedger(ledger, s).violations.stuckOutbox).toEqual({ order: { "1": 1 } });
  });

  test("the outbox totals count every status and every attempt across the services", () => {
    const s = cleanSnapshot();
    s.outbox.points = [
      { status: 2, n: 1, attempts: 1 },
      { status: 9, n: 2, attempts: 10 },
    ];
    expect(checkLedger(ledger, s).outbox).toEqual({ byStatus: { "2": 8, "9": 2 }, attempts: 18 });
  });

  test("a confirmed order without its points never finished", () => {
    const s = cleanSnapshot();
    const o1 = s.orders.get("o1");
    if (o1) o1.pointsGranted = null;
    expect(checkLedger(ledger, s).violations.unfinished).toEqual([
      { orderId: "o1", status: "CONFIRMED without points" },
    ]);
  });

  test("a read model of stock behind inventory, or applied out of order, is reported", () => {
    const s = cleanSnapshot();
    s.stockLevels.set("t-a", { available: 10, reserved: 0, outOfOrder: 0 });
    expect(checkLedger(ledger, s).violations.readModel).toEqual([
      { sku: "t-a", problem: "read model available differs", expected: 7, actual: 10 },
      { sku: "t-a", problem: "read model reserved differs", expected: 3, actual: 0 },
    ]);
    s.stockLevels.set("t-a", { available: 7, reserved: 3, outOfOrder: 2 });
    expect(checkLedger(ledger, s).violations.readModel).toEqual([
      { sku: "t-a", problem: "levels applied out of order", expected: 0, actual: 2 },
    ]);
    s.stockLevels.delete("t-a");
    expect(checkLedger(ledger, s).violationCount).toBe(1);
  });

  test("negative stock is reported", () => {
    const s = cleanSnapshot();
    s.stock.set("t-a", { available: -1, reserved: 11 });
    expect(checkLedger(ledger, s).violations.stock.map((x) => x.problem)).toContain("negative");
  });
});

// Inventory's set-based reserve step (reserve-stock.ts) against its real database: a consumer batch's
// orders decided in one call leave stock and reservations as the same orders one by one would, each
// against the stock the earlier ones left. Each test works inside one transaction on the inventory
// database and rolls it back, so the running service never sees its rows.
import { randomUUID } from "node:crypto";
import type { SqlTx } from "@orderflow/db";
import { openStack } from "@orderflow/infra";
import { afterAll, describe, expect, it } from "vitest";
import { reserveStock } from "../src/steps/reserve-stock.ts";
import {
  adminPool,
  inboundEvent,
  inOneCallAndOneByOne,
  inRolledBack,
  orderCreated,
  runId,
  stepRecorder,
} from "./helpers.ts";

const pool = adminPool(openStack(undefined, false), "inventory");
afterAll(() => pool.end());

const addStock = (tx: SqlTx, sku: string, available: number) =>
  tx.$executeRaw`INSERT INTO stock (sku, available) VALUES (${sku}, ${available})`;

const stockOf = async (tx: SqlTx, sku: string) =>
  (
    await tx.$queryRaw<{ available: number; reserved: number }[]>`
      SELECT available, reserved FROM stock WHERE sku = ${sku}`
  )[0];

const statusOf = async (tx: SqlTx, orderId: string) =>
  (
    await tx.$queryRaw<{ status: string; reason: string | null }[]>`
      SELECT status, reason FROM reservations WHERE order_id = ${orderId}`
  )[0];

/** Five orders over two SKUs, one cancelled before its create arrived (a RELEASED tombstone). */
async function fiveOrders(tx: SqlTx) {
  const run = runId();
  const [a, b] = [`sb-${run}-a`, `sb-${run}-b`];
  await addStock(tx, a, 5);
  await addStock(tx, b, 1);
  const orders = [
    orderCreated([{ sku: a, quantity: 3 }]), // reserved: a 5 -> 2
    orderCreated([
      { sku: b, quantity: 1 },
      { sku: a, quantity: 3 },
    ]), // rejected: a has 2 left; b untouched
    orderCreated([
      { sku: a, quantity: 1 },
      { sku: b, quantity: 1 },
      { sku: a, quantity: 1 },
    ]), // reserved: a 2 -> 0, b 1 -> 0
    orderCreated([{ sku: `sb-${run}-unknown`, quantity: 1 }]), // rejected: unknown SKU
    orderCreated([{ sku: b, quantity: 1 }]), // nothing: its tombstone decided it
  ];
  const tombstoned = (orders[4] as { orderId: string }).orderId;
  await tx.$executeRaw`
    INSERT INTO reservations (order_id, status, reason, reply_message_id)
    VALUES (${tombstoned}, 'RELEASED', 'cancelled first', ${randomUUID()}::uuid)`;
  return { a, b, events: orders.map((o) => inboundEvent("order.created", o)) };
}

describe("inventory's set-based reserve", () => {
  it("one call decides a batch's orders in delivery order, each against the stock the earlier ones left", async () => {
    await inRolledBack(pool, async (tx) => {
      const { a, b, events } = await fiveOrders(tx);
      const out = stepRecorder();
      const results = await reserveStock.many(events, { tx, each: out.each });

      expect(results.map((r) => r?.rejected ?? "ok")).toEqual([
        "ok",
        `insufficient stock for ${a}: 2 available, 3 wanted`,
        "ok",
        expect.stringMatching(/^unknown SKU sb-.*-unknown$/),
        "ok",
      ]);
      expect(await stockOf(tx, a)).toEqual({ available: 0, reserved: 5 });
      expect(await stockOf(tx, b)).toEqual({ available: 0, reserved: 1 });
      const statuses = await Promise.all(events.map((e) => statusOf(tx, e.payload.orderId)));
      expect(statuses.map((s) => s?.status)).toEqual([
        "RESERVED",
        "REJECTED",
        "RESERVED",
        "REJECTED",
        "RELEASED",
      ]);
      // One answer per order decided by this call, from that order's own event; none for the tombstone.
      // Then one level per SKU the call moved, as the call left it, in the saga of its last taker.
      expect(out.enqueued.map(({ i, e }) => [i, e.eventType, e.aggregateId])).toEqual([
        [0, "inventory.reserved", events[0]?.payload.orderId],
        [1, "inventory.rejected", events[1]?.payload.orderId],
        [2, "inventory.reserved", events[2]?.payload.orderId],
        [3, "inventory.rejected", events[3]?.payload.orderId],
        [2, "inventory.stock-changed", a],
        [2, "inventory.stock-changed", b],
      ]);
      expect(out.enqueued.slice(4).map(({ e }) => e.payload)).toEqual([
        { sku: a, available: 0, reserved: 5 },
        { sku: b, available: 0, reserved: 1 },
      ]);
      expect(out.enqueued[2]?.e.payload).toEqual({
        orderId: events[2]?.payload.orderId,
        lines: [
          { sku: a, quantity: 2 },
          { sku: b, quantity: 1 },
        ],
        customerId: events[2]?.payload.customerId,
        total: events[2]?.payload.total,
      });
      expect(out.enqueued[1]?.e.payload).toMatchObject({ sku: a });
    });
  });

  it("leaves stock and reservations as the same orders applied one by one", async () => {
    const { together, alone } = await inOneCallAndOneByOne(
      pool,
      reserveStock,
      fiveOrders,
      async (tx, { a, b, events }, out) => {
        const statuses = await Promise.all(events.map((e) => statusOf(tx, e.payload.orderId)));
        return {
          stock: [await stockOf(tx, a), await stockOf(tx, b)],
          statuses: statuses.map((s) => s?.status),
          // Levels differ by design: one per SKU per call, so one per order applied one by one.
          answers: out.enqueued
            .filter(({ e }) => e.eventType !== "inventory.stock-changed")
            .map(({ i, e }) => [i, e.eventType]),
        };
      },
    );
    expect(together).toEqual(alone);
  });

  it("a second order.created for one order in the same call finds the first one's decision and answers nothing", async () => {
    await inRolledBack(pool, async (tx) => {
      const sku = `sb-${runId()}-twice`;
      await addStock(tx, sku, 10);
      const order = orderCreated([{ sku, quantity: 4 }]);
      const events = [inboundEvent("order.created", order), inboundEvent("order.created", order)];
      const out = stepRecorder();
      await reserveStock.many(events, { tx, each: out.each });
      expect(await stockOf(tx, sku)).toEqual({ available: 6, reserved: 4 });
      expect(out.enqueued.map(({ i, e }) => [i, e.eventType])).toEqual([
        [0, "inventory.reserved"],
        [0, "inventory.stock-changed"],
      ]);
    });
  });
});

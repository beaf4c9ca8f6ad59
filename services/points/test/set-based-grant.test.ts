// Points' set-based grant step (grant-points.ts) against its real database: a consumer batch's grants
// applied in one call leave balances and grants as the same events one by one would, and every event
// gets its answer. The saga's path grants on inventory.reserved; order.confirmed (the order service's
// ask for a v1 reservation) grants the same way. Each test works inside one transaction on the points database and rolls it back, so
// the running service never sees its rows.
import { randomUUID } from "node:crypto";
import type { SqlTx } from "@orderflow/db";
import { openStack } from "@orderflow/infra";
import { afterAll, describe, expect, it } from "vitest";
import { grantOnConfirmation, grantOnReservation } from "../src/steps/grant-points.ts";
import {
  adminPool,
  inboundEvent,
  inOneCallAndOneByOne,
  inRolledBack,
  runId,
  stepRecorder,
} from "./helpers.ts";

const pool = adminPool(openStack(undefined, false), "points");
afterAll(() => pool.end());

const reserved = (customerId: string, total: number) =>
  inboundEvent("inventory.reserved", {
    orderId: randomUUID(),
    lines: [{ sku: "SKU-1", quantity: 1 }],
    customerId,
    total,
  });

const balanceOf = async (tx: SqlTx, customerId: string) =>
  Number(
    (
      await tx.$queryRaw<
        { balance: bigint }[]
      >`SELECT balance FROM accounts WHERE customer_id = ${customerId}`
    )[0]?.balance ?? 0,
  );

const grantRow = (tx: SqlTx, orderId: string, customerId: string, points: number, status: string) =>
  tx.$executeRaw`
    INSERT INTO grants (order_id, customer_id, points, status, reply_message_id)
    VALUES (${orderId}, ${customerId}, ${points}, ${status}, ${randomUUID()}::uuid)`;

/** Five inventory.reserved for two customers: two new grants for one, one new and two already decided for the other. */
async function fiveGrants(tx: SqlTx) {
  const [c1, c2] = [`sbg-${runId()}-1`, `sbg-${runId()}-2`];
  const events = [
    reserved(c1, 12_345), // 123 points
    reserved(c2, 1_000), // 10
    reserved(c1, 99), // 0: less than one whole unit
    reserved(c2, 50_000), // granted before: repeats its 500
    reserved(c2, 7_000), // cancelled first (REVERSED tombstone): answers 0
  ];
  await grantRow(tx, events[3]?.payload.orderId as string, c2, 500, "GRANTED");
  await tx.$executeRaw`INSERT INTO accounts (customer_id, balance) VALUES (${c2}, 500)`;
  await grantRow(tx, events[4]?.payload.orderId as string, c2, 0, "REVERSED");
  return { c1, c2, events };
}

describe("points' set-based grant", () => {
  it("one call credits each customer with the sum of its new grants and answers every event", async () => {
    await inRolledBack(pool, async (tx) => {
      const { c1, c2, events } = await fiveGrants(tx);
      const out = stepRecorder();
      await grantOnReservation.many(events, { tx, each: out.each });
      expect(await balanceOf(tx, c1)).toBe(123);
      expect(await balanceOf(tx, c2)).toBe(510);
      expect(
        out.enqueued.map(({ i, e }) => [i, e.eventType, (e.payload as { points: number }).points]),
      ).toEqual([
        [0, "points.granted", 123],
        [1, "points.granted", 10],
        [2, "points.granted", 0],
        [3, "points.granted", 500],
        [4, "points.granted", 0],
      ]);
      // Each grant row names the answer sent for it, the repeated ones included.
      const replies = await tx.$queryRaw<{ order_id: string; reply_message_id: string }[]>`
        SELECT order_id, reply_message_id::text FROM grants
         WHERE order_id = ANY(${events.map((e) => e.payload.orderId)}::text[])`;
      const byOrder = new Map(replies.map((r) => [r.order_id, r.reply_message_id]));
      for (const { e } of out.enqueued) expect(byOrder.get(e.aggregateId)).toBe(e.messageId);
    });
  });

  it("leaves balances and answers as the same events applied one by one", async () => {
    const { together, alone } = await inOneCallAndOneByOne(
      pool,
      grantOnReservation,
      fiveGrants,
      async (tx, { c1, c2 }, out) => ({
        balances: [await balanceOf(tx, c1), await balanceOf(tx, c2)],
        answers: out.enqueued.map(({ i, e }) => [i, (e.payload as { points: number }).points]),
      }),
    );
    expect(together).toEqual(alone);
  });

  it("a second reservation for one order in the same call repeats the first one's grant", async () => {
    await inRolledBack(pool, async (tx) => {
      const customer = `sbg-${runId()}-twice`;
      const first = reserved(customer, 4_200);
      const again = inboundEvent("inventory.reserved", first.payload);
      const out = stepRecorder();
      await grantOnReservation.many([first, again], { tx, each: out.each });
      expect(await balanceOf(tx, customer)).toBe(42);
      expect(out.enqueued.map(({ i, e }) => [i, (e.payload as { points: number }).points])).toEqual([
        [0, 42],
        [1, 42],
      ]);
    });
  });

  it("an order.confirmed for an order already granted on its reservation repeats that grant", async () => {
    await inRolledBack(pool, async (tx) => {
      const customer = `sbg-${runId()}-resent`;
      const first = reserved(customer, 3_100);
      const { orderId, total } = first.payload as { orderId: string; total: number };
      const resent = inboundEvent("order.confirmed", { orderId, customerId: customer, total });
      const out = stepRecorder();
      await grantOnReservation.many([first], { tx, each: out.each });
      await grantOnConfirmation.many([resent], { tx, each: out.each });
      expect(await balanceOf(tx, customer)).toBe(31);
      expect(out.enqueued.map(({ e }) => (e.payload as { points: number }).points)).toEqual([31, 31]);
    });
  });

  it("a v1 reservation, without customer and total, grants nothing and answers nothing", async () => {
    await inRolledBack(pool, async (tx) => {
      const customer = `sbg-${runId()}-v1`;
      const v1 = inboundEvent("inventory.reserved", {
        orderId: randomUUID(),
        lines: [{ sku: "SKU-1", quantity: 1 }],
      });
      const out = stepRecorder();
      await grantOnReservation.many([v1, reserved(customer, 500)], { tx, each: out.each });
      expect(out.enqueued.map(({ i }) => i)).toEqual([1]);
      expect(await balanceOf(tx, customer)).toBe(5);
      const rows = await tx.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM grants WHERE order_id = ${(v1.payload as { orderId: string }).orderId}`;
      expect(rows[0]?.n).toBe(0);
    });
  });
});

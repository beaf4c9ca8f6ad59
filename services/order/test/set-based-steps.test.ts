// The order service's set-based steps (confirm-order.ts, record-points.ts) against its real database:
// a batch's events applied in one call leave each order as the same events one by one would. Each test
// works inside one transaction on the order database and rolls it back, so the running saga never sees
// its rows.
import { randomUUID } from "node:crypto";
import type { SqlTx } from "@orderflow/db";
import { afterAll, describe, expect, it } from "vitest";
import { createFinalLatency } from "../src/final-latency.ts";
import { confirmOrder } from "../src/steps/confirm-order.ts";
import { recordPoints } from "../src/steps/record-points.ts";
import { inboundEvent, inRolledBack, openSaga, stepRecorder } from "./helpers.ts";

const saga = await openSaga();
afterAll(() => saga.close());

async function insertOrder(tx: SqlTx, status: string): Promise<string> {
  const id = randomUUID();
  await tx.$executeRaw`
    INSERT INTO orders (id, customer_id, status, total, created_message_id, correlation_id, created_at, updated_at)
    VALUES (${id}::uuid, 'c-set-based', ${status}, 12345, ${randomUUID()}::uuid, 'set-based', now(), now())`;
  return id;
}

const historyOf = async (tx: SqlTx, id: string) =>
  (
    await tx.$queryRaw<
      { event: string }[]
    >`SELECT event FROM order_history WHERE order_id = ${id}::uuid ORDER BY id`
  ).map((r) => r.event);

describe("the order service's set-based steps", () => {
  it("one call confirms every PENDING order of a batch, and leaves the others as one by one would", async () => {
    await inRolledBack(saga.db.order, async (tx) => {
      const pending = [await insertOrder(tx, "PENDING"), await insertOrder(tx, "PENDING")];
      const upper = await insertOrder(tx, "PENDING"); // named in upper case by its reply
      const cancelled = await insertOrder(tx, "CANCELLED");
      const lines = [{ sku: "SKU-1", quantity: 1 }];
      const events = [
        inboundEvent("inventory.reserved", { orderId: pending[0] as string, lines }),
        inboundEvent("inventory.reserved", { orderId: cancelled, lines }),
        inboundEvent("inventory.reserved", { orderId: randomUUID(), lines }), // no such order
        inboundEvent("inventory.reserved", { orderId: pending[1] as string, lines }),
        inboundEvent("inventory.reserved", { orderId: "not-a-uuid", lines }),
        inboundEvent("inventory.reserved", { orderId: upper.toUpperCase(), lines }),
      ];
      const out = stepRecorder();
      const results = await confirmOrder(createFinalLatency()).many(events, { tx, each: out.each });
      expect(results).toEqual(events.map(() => undefined));
      const status = await tx.$queryRaw<
        { id: string; status: string; confirmed_message_id: string | null }[]
      >`
        SELECT id::text AS id, status, confirmed_message_id::text FROM orders
         WHERE id = ANY(${[...pending, upper, cancelled]}::uuid[])`;
      const byId = new Map(status.map((r) => [r.id, r]));
      for (const id of [...pending, upper]) {
        expect(byId.get(id)?.status).toBe("CONFIRMED");
        expect(await historyOf(tx, id)).toEqual(["inventory.reserved", "order.confirmed"]);
      }
      expect(byId.get(cancelled)?.status).toBe("CANCELLED");
      expect(await historyOf(tx, cancelled)).toEqual(["inventory.reserved.ignored"]);
      // One order.confirmed per confirmed order, from that order's own event, carrying the id recorded.
      expect(out.enqueued.map(({ i, e }) => [i, e.eventType, e.aggregateId])).toEqual([
        [0, "order.confirmed", pending[0]],
        [3, "order.confirmed", pending[1]],
        [5, "order.confirmed", upper.toUpperCase()],
      ]);
      for (const { e } of out.enqueued)
        expect(byId.get(e.aggregateId.toLowerCase())?.confirmed_message_id).toBe(e.messageId ?? "");
      // Every reply ends order.created's wait, whatever the order's state.
      expect(out.marked.map((m) => [m.i, m.causationId])).toEqual(
        events.map((e, i) => [i, e.envelope.causationId]),
      );
    });
  });

  it("one call records the points of every order it names; an unknown order records nothing and stays waiting", async () => {
    await inRolledBack(saga.db.order, async (tx) => {
      const a = await insertOrder(tx, "CONFIRMED");
      const b = await insertOrder(tx, "CONFIRMED");
      const events = [
        inboundEvent("points.granted", { orderId: a, customerId: "c-set-based", points: 123 }),
        inboundEvent("points.granted", { orderId: randomUUID(), customerId: "c-set-based", points: 5 }),
        inboundEvent("points.granted", { orderId: b, customerId: "c-set-based", points: 7 }),
      ];
      const out = stepRecorder();
      await recordPoints.many(events, { tx, each: out.each });
      const rows = await tx.$queryRaw<{ id: string; points_granted: number | null }[]>`
        SELECT id::text AS id, points_granted FROM orders WHERE id = ANY(${[a, b]}::uuid[]) ORDER BY id`;
      expect(Object.fromEntries(rows.map((r) => [r.id, r.points_granted]))).toEqual({ [a]: 123, [b]: 7 });
      expect(await historyOf(tx, a)).toEqual(["points.granted"]);
      expect(out.marked.map((m) => m.i)).toEqual([0, 2]);
    });
  });

  it("two replies about one order in one call apply in rounds, the second finding the first's effect", async () => {
    await inRolledBack(saga.db.order, async (tx) => {
      const id = await insertOrder(tx, "PENDING");
      const lines = [{ sku: "SKU-1", quantity: 1 }];
      const events = [
        inboundEvent("inventory.reserved", { orderId: id, lines }),
        inboundEvent("inventory.reserved", { orderId: id.toUpperCase(), lines }),
      ];
      const out = stepRecorder();
      await confirmOrder(createFinalLatency()).many(events, { tx, each: out.each });
      expect(await historyOf(tx, id)).toEqual([
        "inventory.reserved",
        "order.confirmed",
        "inventory.reserved.ignored",
      ]);
      expect(out.enqueued.map(({ i }) => i)).toEqual([0]);
    });
  });
});

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

/** inventory.reserved as inventory writes it today (v2: with the customer and total). */
const reserved = (orderId: string) =>
  inboundEvent("inventory.reserved", {
    orderId,
    lines: [{ sku: "SKU-1", quantity: 1 }],
    customerId: "c-set-based",
    total: 12345,
  });

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
      const events = [
        reserved(pending[0] as string),
        reserved(cancelled),
        reserved(randomUUID()), // no such order
        reserved(pending[1] as string),
        reserved("not-a-uuid"),
        reserved(upper.toUpperCase()),
      ];
      const out = stepRecorder();
      const results = await confirmOrder(createFinalLatency()).many(events, { tx, each: out.each });
      expect(results).toEqual(events.map(() => undefined));
      const status = await tx.$queryRaw<{ id: string; status: string }[]>`
        SELECT id::text AS id, status FROM orders WHERE id = ANY(${[...pending, upper, cancelled]}::uuid[])`;
      const byId = new Map(status.map((r) => [r.id, r]));
      for (const id of [...pending, upper]) {
        expect(byId.get(id)?.status).toBe("CONFIRMED");
        expect(await historyOf(tx, id)).toEqual(["inventory.reserved"]);
      }
      expect(byId.get(cancelled)?.status).toBe("CANCELLED");
      expect(await historyOf(tx, cancelled)).toEqual(["inventory.reserved.ignored"]);
      // Points grants on the same reservation: the confirmation publishes nothing.
      expect(out.enqueued).toEqual([]);
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

  it("a v1 reservation (no customer or total for points) confirms the order and asks points with order.confirmed", async () => {
    await inRolledBack(saga.db.order, async (tx) => {
      const v1 = await insertOrder(tx, "PENDING");
      const v2 = await insertOrder(tx, "PENDING");
      const out = stepRecorder();
      await confirmOrder(createFinalLatency()).many(
        [
          inboundEvent("inventory.reserved", { orderId: v1, lines: [{ sku: "SKU-1", quantity: 1 }] }),
          reserved(v2),
        ],
        { tx, each: out.each },
      );
      expect(out.enqueued.map(({ i, e }) => [i, e.eventType, e.aggregateId, e.payload])).toEqual([
        [0, "order.confirmed", v1, { orderId: v1, customerId: "c-set-based", total: 12345 }],
      ]);
      const rows = await tx.$queryRaw<{ id: string; status: string; confirmed_message_id: string | null }[]>`
        SELECT id::text AS id, status, confirmed_message_id::text FROM orders WHERE id = ANY(${[v1, v2]}::uuid[])`;
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(byId.get(v1)).toMatchObject({
        status: "CONFIRMED",
        confirmed_message_id: out.enqueued[0]?.e.messageId,
      });
      expect(byId.get(v2)).toMatchObject({ status: "CONFIRMED", confirmed_message_id: null });
    });
  });

  it("points granted before the confirmation are recorded, and the order is final once the reservation confirms it", async () => {
    await inRolledBack(saga.db.order, async (tx) => {
      const id = await insertOrder(tx, "PENDING");
      const out = stepRecorder();
      await recordPoints.many(
        [inboundEvent("points.granted", { orderId: id, customerId: "c-set-based", points: 123 })],
        { tx, each: out.each },
      );
      const read = async () =>
        (
          await tx.$queryRaw<{ status: string; points_granted: number | null }[]>`
            SELECT status, points_granted FROM orders WHERE id = ${id}::uuid`
        )[0];
      expect(await read()).toEqual({ status: "PENDING", points_granted: 123 });
      await confirmOrder(createFinalLatency()).many([reserved(id)], { tx, each: out.each });
      expect(await read()).toEqual({ status: "CONFIRMED", points_granted: 123 });
      expect(await historyOf(tx, id)).toEqual(["points.granted", "inventory.reserved"]);
    });
  });

  it("two replies about one order in one call apply in rounds, the second finding the first's effect", async () => {
    await inRolledBack(saga.db.order, async (tx) => {
      const id = await insertOrder(tx, "PENDING");
      const events = [reserved(id), reserved(id.toUpperCase())];
      const out = stepRecorder();
      await confirmOrder(createFinalLatency()).many(events, { tx, each: out.each });
      expect(await historyOf(tx, id)).toEqual(["inventory.reserved", "inventory.reserved.ignored"]);
      expect(out.enqueued).toEqual([]);
    });
  });
});

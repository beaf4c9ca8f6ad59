// Cancel after confirm: inventory releases the stock and points reverses the grant, each exactly once,
// even when order.cancelled is delivered again.
import { afterAll, beforeAll, expect, test } from "vitest";
import { api, eventually, openSaga, placeOrder, runId, type Saga, setStock } from "./helpers.ts";

let saga: Saga;
beforeAll(async () => {
  saga = await openSaga();
});
afterAll(async () => {
  await saga?.close();
});

const order = (saga: Saga, id: string) => api(saga.url.order, "GET", `/orders/${id}`).then((r) => r.body);

test("cancelling a confirmed order releases its stock and reverses its points once, even if the event comes twice", async () => {
  const run = runId();
  const sku = `comp-${run}`;
  const customer = `comp-${run}`;
  await setStock(saga, sku, 10);
  const placed = await placeOrder(saga, customer, [{ sku, quantity: 3, unitPrice: 1_999 }]);
  const id = placed.body.id as string;
  await eventually("the order confirmed with points", async () => {
    const o = await order(saga, id);
    return o.status === "CONFIRMED" && o.pointsGranted === 59 ? o : undefined;
  });
  expect((await api(saga.url.inventory, "GET", `/stock/${sku}`)).body).toEqual({
    sku,
    available: 7,
    reserved: 3,
  });

  const cancelled = await api(saga.url.order, "POST", `/orders/${id}/cancel`);
  expect(cancelled.status).toBe(200);
  expect(cancelled.body.status).toBe("CANCELLED");
  // A second cancel is answered with the same cancelled order and emits nothing new.
  expect((await api(saga.url.order, "POST", `/orders/${id}/cancel`)).body.status).toBe("CANCELLED");

  const acknowledged = async () => {
    const o = await order(saga, id);
    const events = o.history.map((h: { event: string }) => h.event);
    return events.includes("inventory.released") && events.includes("points.reversed") ? events : undefined;
  };
  await eventually("both compensations acknowledged", acknowledged);

  // Deliver order.cancelled again under its original message id: the inboxes must skip it.
  const row = await saga.db.order.query<{ cancelled_message_id: string }>(
    `SELECT cancelled_message_id FROM orders WHERE id = $1`,
    [id],
  );
  const messageId = row.rows[0]?.cancelled_message_id;
  await saga.db.order.query(`UPDATE outbox SET status = 0, next_attempt_at = now() WHERE message_id = $1`, [
    messageId,
  ]);
  await eventually("the re-sent order.cancelled to be published", async () => {
    const r = await saga.db.order.query<{ status: number }>(
      `SELECT status FROM outbox WHERE message_id = $1`,
      [messageId],
    );
    return r.rows[0]?.status !== 0 ? true : undefined;
  });
  await eventually("both inboxes to have seen the message", async () => {
    const [inv, pts] = await Promise.all([
      saga.db.inventory.query(`SELECT 1 FROM inbox WHERE message_id = $1`, [messageId]),
      saga.db.points.query(`SELECT 1 FROM inbox WHERE message_id = $1`, [messageId]),
    ]);
    return inv.rowCount === 1 && pts.rowCount === 1 ? true : undefined;
  });

  expect((await api(saga.url.inventory, "GET", `/stock/${sku}`)).body).toEqual({
    sku,
    available: 10,
    reserved: 0,
  });
  const points = (await api(saga.url.points, "GET", `/points/${customer}`)).body;
  expect(points.balance).toBe(0);
  expect(points.grants).toMatchObject([{ orderId: id, status: "REVERSED", points: 59 }]);
  const events = (await order(saga, id)).history.map((h: { event: string }) => h.event);
  expect(events.filter((e: string) => e === "inventory.released")).toHaveLength(1);
  expect(events.filter((e: string) => e === "points.reversed")).toHaveLength(1);
});

test("a PENDING or unknown order cannot be cancelled", async () => {
  expect(
    (await api(saga.url.order, "POST", "/orders/00000000-0000-4000-8000-000000000000/cancel")).status,
  ).toBe(404);
});

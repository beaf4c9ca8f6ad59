// The upgrade path from inventory.reserved v1 to v2, end to end: a v1 (written before inventory carried
// the customer and total, still queued when the services were upgraded) reaches both the order service
// and points. Points has nothing to grant on and acknowledges it; the order service confirms the order
// and asks points with order.confirmed, as it does for every v1 reservation; the order ends CONFIRMED
// with its points, granted once.
import { randomUUID } from "node:crypto";
import { pointsFor } from "@orderflow/contracts";
import { amqpUrls } from "@orderflow/infra";
import { withConfirmedPublisher } from "@orderflow/testkit/publisher.ts";
import { afterAll, beforeAll, expect, test } from "vitest";
import { api, eventually, openSaga, runId, type Saga } from "./helpers.ts";

let saga: Saga;
beforeAll(async () => {
  saga = await openSaga();
});
afterAll(async () => {
  await saga?.close();
});

/** A PENDING order as POST /orders leaves it, written directly: the test plays inventory's part. */
async function pendingOrder(customerId: string, total: number): Promise<string> {
  const id = randomUUID();
  await saga.db.order.query(
    `INSERT INTO orders (id, customer_id, status, total, created_message_id, correlation_id, created_at, updated_at)
     VALUES ($1::uuid, $2, 'PENDING', $3, $4::uuid, $1, now(), now())`,
    [id, customerId, total, randomUUID()],
  );
  return id;
}

test("a v1 reservation still ends in a confirmed order with its points, asked for with order.confirmed", async () => {
  const customer = `v1-${runId()}`;
  const total = 4_321;
  const orderId = await pendingOrder(customer, total);
  const v1 = { orderId, lines: [{ sku: `v1-${runId()}`, quantity: 1 }] };
  await withConfirmedPublisher(amqpUrls(saga.stack), (p) =>
    p.publishEvent(
      {
        messageId: randomUUID(),
        type: "inventory.reserved",
        schemaVersion: 1,
        correlationId: orderId,
        causationId: randomUUID(),
      },
      v1,
    ),
  );

  const order = await eventually("the order confirmed with its points", async () => {
    const r = await saga.db.order.query<{ status: string; points_granted: number | null }>(
      `SELECT status, points_granted FROM orders WHERE id = $1::uuid`,
      [orderId],
    );
    const o = r.rows[0];
    return o?.status === "CONFIRMED" && o.points_granted !== null ? o : undefined;
  });
  expect(order.points_granted).toBe(pointsFor(total));
  const history = await saga.db.order.query<{ event: string }>(
    `SELECT event FROM order_history WHERE order_id = $1::uuid ORDER BY id`,
    [orderId],
  );
  expect(history.rows.map((h) => h.event)).toEqual([
    "inventory.reserved",
    "order.confirmed",
    "points.granted",
  ]);
  // Granted once, through order.confirmed: the v1 reservation itself granted nothing.
  const account = await api(saga.url.points, "GET", `/points/${customer}`);
  expect(account.body).toMatchObject({
    balance: pointsFor(total),
    grants: [{ orderId, points: pointsFor(total), status: "GRANTED" }],
  });
  const asked = await saga.db.order.query<{ status: number }>(
    `SELECT status FROM outbox WHERE aggregate_id = $1 AND event_type = 'order.confirmed'`,
    [orderId],
  );
  expect(asked.rows).toEqual([{ status: 2 }]);
}, 60_000);

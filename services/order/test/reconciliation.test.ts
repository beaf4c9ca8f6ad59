// Reconciliation (对账) repairs an order whose order.created was lost in the broker (purged queue).
import { amqpUrls, startApplication, stopApplication } from "@orderflow/infra";
import amqp from "amqplib";
import { afterAll, beforeAll, expect, test } from "vitest";
import { api, eventually, openSaga, placeOrder, runId, type Saga, setStock } from "./helpers.ts";

let saga: Saga;
beforeAll(async () => {
  saga = await openSaga();
});
afterAll(async () => {
  if (!saga) return;
  await startApplication("inventory", saga.stack).catch(() => {});
  await saga.close();
});

test("an order whose order.created was purged from the broker is repaired by republishing the original event", async () => {
  const run = runId();
  const sku = `recon-${run}`;
  await setStock(saga, sku, 5);
  await stopApplication("inventory", saga.stack); // nobody consumes inventory.order-events now

  const placed = await placeOrder(saga, `recon-${run}`, [{ sku, quantity: 2, unitPrice: 1_000 }]);
  const id = placed.body.id as string;
  const created = await saga.db.order.query<{ created_message_id: string }>(
    `SELECT created_message_id FROM orders WHERE id = $1`,
    [id],
  );
  const messageId = created.rows[0]?.created_message_id;
  await eventually("order.created confirmed by the broker", async () => {
    const r = await saga.db.order.query<{ status: number }>(
      `SELECT status FROM outbox WHERE message_id = $1`,
      [messageId],
    );
    return r.rows[0]?.status === 1 ? true : undefined;
  });

  const conn = await amqp.connect(amqpUrls(saga.stack)[0] as string);
  const ch = await conn.createChannel();
  const purged = await ch.purgeQueue("inventory.order-events");
  await conn.close();
  expect(purged.messageCount).toBeGreaterThanOrEqual(1);

  await startApplication("inventory", saga.stack);
  expect((await api(saga.url.order, "GET", `/orders/${id}`)).body.status).toBe("PENDING");

  // Narrowed to this order: other runs (the fault lab's pitfalls) may have left many stuck orders.
  const report = await api(saga.url.order, "POST", `/admin/reconcile?olderThanMs=0&orderId=${id}`);
  expect(report.status).toBe(200);
  expect(report.body.repairs).toEqual([{ orderId: id, kind: "republish:order.created" }]);

  const o = await eventually("the repaired order confirmed with points", async () => {
    const b = (await api(saga.url.order, "GET", `/orders/${id}`)).body;
    return b.status === "CONFIRMED" && b.pointsGranted === 20 ? b : undefined;
  });
  expect(o.history.map((h: { event: string }) => h.event)).toContain("inventory.reserved");
  // The republished event carried its original message id: the inbox row proves which id inventory applied.
  const inbox = await saga.db.inventory.query(`SELECT 1 FROM inbox WHERE message_id = $1`, [messageId]);
  expect(inbox.rowCount).toBe(1);
  const m = await fetch(`${saga.url.order}/metrics`).then((r) => r.text());
  expect(m).toMatch(/order_reconciliation_repairs_total\{[^}]*kind="republish:order.created"[^}]*\} [1-9]/);
});

// Reconciliation (对账) repairs an order whose order.created was lost in the broker (purged queue).
import { randomUUID } from "node:crypto";
import { amqpUrls, startApplication, stopApplication } from "@orderflow/infra";
import { withConfirmedPublisher } from "@orderflow/testkit/publisher.ts";
import amqp from "amqplib";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  adminHeaders,
  api,
  eventually,
  openSaga,
  placeOrder,
  runId,
  type Saga,
  setStock,
} from "./helpers.ts";

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
  const report = await api(
    saga.url.order,
    "POST",
    `/admin/reconcile?olderThanMs=0&orderId=${id}`,
    undefined,
    adminHeaders(saga.stack),
  );
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

test("an order whose reservation the points service refuses for good has it re-sent at most RECONCILE_MAX_REPAIRS (3) times, then is reported once and left alone", async () => {
  const run = runId();
  const sku = `doomed-${run}`;
  const customer = `doomed-${run}`;
  // A permanent refusal for this customer only: PostgreSQL rejects the grant with a data error, so the
  // points consumer parks inventory.reserved as poison at once (a stand-in for any failure no retry fixes).
  // The order is confirmed all the same; reconciliation asks inventory to re-send that reply.
  const fn = `refuse_${run.replaceAll("-", "_")}`;
  await saga.db.points.query(
    `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN IF NEW.customer_id = '${customer}' THEN RAISE EXCEPTION 'refused' USING ERRCODE = '22023'; END IF;
     RETURN NEW; END $$`,
  );
  await saga.db.points.query(
    `CREATE TRIGGER ${fn} BEFORE INSERT ON grants FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
  );
  try {
    await setStock(saga, sku, 5);
    const id = (await placeOrder(saga, customer, [{ sku, quantity: 1, unitPrice: 1_000 }])).body.id as string;
    const parkedCopies = async () => {
      const conn = await amqp.connect(amqpUrls(saga.stack)[0] as string);
      try {
        const ch = await conn.createChannel();
        const seen: unknown[] = [];
        for (;;) {
          const m = await ch.get("points.order-events.parking", { noAck: false });
          if (!m) break;
          seen.push(fieldOf(m.content, "orderId"));
        }
        await ch.close(); // every copy taken goes back to the parking lot unacked
        return seen.filter((o) => o === id).length;
      } finally {
        await conn.close();
      }
    };
    await eventually("inventory.reserved parked by the points service", async () =>
      (await parkedCopies()) >= 1 ? true : undefined,
    );

    const pass = () =>
      api(
        saga.url.order,
        "POST",
        `/admin/reconcile?olderThanMs=0&orderId=${id}`,
        undefined,
        adminHeaders(saga.stack),
      );
    for (let i = 1; i <= 3; i++) {
      const r = await pass();
      expect(r.body).toMatchObject({
        repairs: [{ orderId: id, kind: "replay:inventory-reply" }],
        gaveUp: [],
      });
      await eventually(`copy ${i + 1} parked`, async () =>
        (await parkedCopies()) >= i + 1 ? true : undefined,
      );
    }
    expect((await pass()).body).toMatchObject({ checked: 1, repairs: [], gaveUp: [id] });
    expect((await pass()).body).toMatchObject({ checked: 0, repairs: [], gaveUp: [] });
    expect(await parkedCopies()).toBe(4);
    const m = await fetch(`${saga.url.order}/metrics`).then((r) => r.text());
    expect(m).toMatch(/order_reconciliation_gave_up_total(\{[^}]*\})? [1-9]/);
  } finally {
    await saga.db.points.query(`DROP TRIGGER IF EXISTS ${fn} ON grants`);
    await saga.db.points.query(`DROP FUNCTION IF EXISTS ${fn}()`);
    // Our copies leave the parking lot; everyone else's stay.
    const conn = await amqp.connect(amqpUrls(saga.stack)[0] as string);
    const ch = await conn.createChannel();
    for (;;) {
      const m = await ch.get("points.order-events.parking", { noAck: false });
      if (!m) break;
      // Other tests park poison too (malformed JSON, no body at all): only ours are JSON of this customer.
      if (fieldOf(m.content, "customerId") === customer) ch.ack(m);
    }
    await ch.close();
    await conn.close();
  }
}, 120_000);

test("a reservation and a grant for an order that does not exist are found, reported and given back by an order.cancelled", async () => {
  const run = runId();
  const sku = `orphan-${run}`;
  const customerId = `orphan-${run}`;
  const orderId = randomUUID(); // never placed: as if forged by a publisher the broker let through
  await setStock(saga, sku, 5);
  await withConfirmedPublisher(amqpUrls(saga.stack), async (p) => {
    const forge = (type: "order.created" | "order.confirmed", payload: object) => {
      const id = randomUUID();
      return p.publishEvent(
        { messageId: id, type, schemaVersion: 1, correlationId: id, causationId: id },
        payload,
      );
    };
    await forge("order.created", {
      orderId,
      customerId,
      lines: [{ sku, quantity: 2, unitPrice: 500 }],
      total: 1_000,
      createdAt: new Date().toISOString(),
    });
    await forge("order.confirmed", { orderId, customerId, total: 1_000 });
  });
  const stock = () => api(saga.url.inventory, "GET", `/stock/${sku}`).then((r) => r.body);
  const balance = () => api(saga.url.points, "GET", `/points/${customerId}`).then((r) => r.body.balance);
  await eventually("the forged effects applied", async () =>
    (await stock()).reserved === 2 && (await balance()) === 10 ? true : undefined,
  );

  // Full passes (not narrowed to an order) scan each peer's effects from where the last pass stopped.
  const found: { orderId: string; source: string }[] = [];
  const reversed: string[] = [];
  for (let pass = 0; pass < 30 && reversed.filter((id) => id === orderId).length === 0; pass++) {
    const r = await api(
      saga.url.order,
      "POST",
      "/admin/reconcile?olderThanMs=0",
      undefined,
      adminHeaders(saga.stack),
    );
    expect(r.status).toBe(200);
    found.push(...r.body.orphans.found);
    reversed.push(...r.body.orphans.reversed);
  }
  expect(
    found
      .filter((f) => f.orderId === orderId)
      .map((f) => f.source)
      .sort(),
  ).toEqual(["inventory", "points"]);
  expect(reversed).toContain(orderId);
  await eventually("stock and points given back", async () =>
    (await stock()).reserved === 0 && (await stock()).available === 5 && (await balance()) === 0
      ? true
      : undefined,
  );
  const row = await eventually("the reversal's order.cancelled done", async () => {
    const r = await saga.db.order.query<{ status: number }>(
      `SELECT status FROM outbox WHERE aggregate_id = $1 AND event_type = 'order.cancelled'`,
      [orderId],
    );
    return r.rows[0]?.status === 2 ? r.rows[0] : undefined;
  });
  expect(row.status).toBe(2);
  const m = await fetch(`${saga.url.order}/metrics`).then((r) => r.text());
  expect(m).toMatch(/order_reconciliation_orphans_total\{[^}]*source="inventory"[^}]*\} [1-9]/);
}, 120_000);

/** A field of a parked message's JSON body; undefined for a body that is not JSON (others' poison). */
function fieldOf(body: Buffer, key: string): unknown {
  try {
    return (JSON.parse(body.toString()) as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

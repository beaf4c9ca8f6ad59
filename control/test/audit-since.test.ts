// GET /audit's reads against the real databases: an order that finishes its saga while the audit reads
// the three databases one after the other must not be reported as damaged. The saga's rows are written
// here by SQL, as the services would write them, at the moment between two of the audit's reads; the
// services themselves are not involved (nothing consumes these rows: no messages are sent).
import { randomUUID } from "node:crypto";
import { pointsFor } from "@orderflow/contracts";
import { adminUrl, databaseName, openStack, type ServiceName } from "@orderflow/infra";
import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { auditSince, localAuditSources, type ReadDatabase } from "../src/audit-since.ts";

const stack = openStack(undefined, false);
const prefix = `audit-torn-${randomUUID().slice(0, 8)}-`;
const orderId = randomUUID();
const customerId = `${prefix}c-1`;
const sku = `${prefix}sku-1`;
const total = 1_500;

async function sql(svc: ServiceName, text: string, values: unknown[] = []): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl(stack.pg, databaseName(svc)) });
  await c.connect();
  try {
    await c.query(text, values);
  } finally {
    await c.end();
  }
}

/** What inventory, points and then the order service commit for one confirmed order, in saga order. */
async function runSaga(): Promise<void> {
  await sql(
    "inventory",
    `WITH r AS (INSERT INTO reservations (order_id, status, lines, reply_message_id)
                VALUES ($1, 'RESERVED', $2::jsonb, $3::uuid))
     UPDATE stock SET available = available - 2, reserved = reserved + 2 WHERE sku = $4`,
    [orderId, JSON.stringify([{ sku, quantity: 2 }]), randomUUID(), sku],
  );
  await sql(
    "points",
    `WITH g AS (INSERT INTO grants (order_id, customer_id, points, status, reply_message_id)
                VALUES ($1, $2, $3, 'GRANTED', $4::uuid))
     INSERT INTO accounts (customer_id, balance) VALUES ($2, $3)`,
    [orderId, customerId, pointsFor(total), randomUUID()],
  );
  await sql(
    "order",
    `UPDATE orders SET status = 'CONFIRMED', points_granted = $2, confirmed_message_id = $3::uuid
      WHERE id = $1::uuid`,
    [orderId, pointsFor(total), randomUUID()],
  );
  // The read model of stock, caught up with the reservation's level (inventory.stock-changed).
  await sql("order", "UPDATE stock_levels SET available = 8, reserved = 2, sequence = 2 WHERE sku = $1", [
    sku,
  ]);
}

afterAll(async () => {
  await sql("order", "DELETE FROM order_lines WHERE order_id = $1::uuid", [orderId]);
  await sql("order", "DELETE FROM orders WHERE id = $1::uuid", [orderId]);
  await sql("inventory", "DELETE FROM reservations WHERE order_id = $1", [orderId]);
  await sql("inventory", "DELETE FROM stock WHERE sku = $1", [sku]);
  await sql("order", "DELETE FROM stock_levels WHERE sku = $1", [sku]);
  await sql("points", "DELETE FROM grants WHERE order_id = $1", [orderId]);
  await sql("points", "DELETE FROM accounts WHERE customer_id = $1", [customerId]);
});

describe("GET /audit's snapshot", () => {
  test("an order confirmed between the audit's reads of the three databases is audited whole, not as a double effect", async () => {
    const since = new Date(Date.now() - 1_000);
    await sql("inventory", "INSERT INTO stock (sku, available, reserved) VALUES ($1, 10, 0)", [sku]);
    await sql(
      "order",
      "INSERT INTO stock_levels (sku, available, reserved, sequence) VALUES ($1, 10, 0, 1)",
      [sku],
    );
    await sql(
      "order",
      `WITH o AS (INSERT INTO orders (id, customer_id, status, total, created_message_id, correlation_id)
                  VALUES ($1::uuid, $2, 'PENDING', $3, $4::uuid, $1))
       INSERT INTO order_lines (order_id, line_no, sku, quantity, unit_price) VALUES ($1::uuid, 1, $5, 2, 750)`,
      [orderId, customerId, total, randomUUID(), sku],
    );

    // The saga runs once, right after the first snapshot's read of inventory (the ledger's read of the
    // initial stock is the first read of inventory; the snapshot's is the second).
    const local = localAuditSources(stack);
    const reads: ServiceName[] = [];
    let inventoryReads = 0;
    const read: ReadDatabase = async (svc, fn) => {
      reads.push(svc);
      const out = await local.read(svc, fn);
      if (svc === "inventory" && ++inventoryReads === 2) await runSaga();
      return out;
    };
    const r = await auditSince({ ...local, read }, { since, prefix, settleS: 15 });

    expect(r.violations).toMatchObject({
      lost: [],
      unfinished: [],
      duplicated: [],
      stock: [],
      readModel: [],
      points: [],
    });
    expect(r.violationCount).toBe(0);
    expect(r.orders).toMatchObject({ accepted: 1, confirmed: 1, cancelled: 0 });
    // The first snapshot saw the order still PENDING, so the audit waited for a second one.
    expect(r.settledAfterMs).toBeGreaterThan(0);
    // The ledger's two reads, then the first snapshot's: the order database before its peers.
    expect(reads.slice(0, 5)).toEqual(["order", "inventory", "order", "inventory", "points"]);
  }, 60_000);

  test("a stack still healing when the audit starts is read again within settleS, and fails at once without it", async () => {
    const local = localAuditSources(stack);
    let refusals = 2;
    // The first reads fail as they do while a broker node or a database is coming back after a fault.
    const healing: ReadDatabase = async (svc, fn) => {
      if (refusals > 0) {
        refusals--;
        throw new Error("connect ECONNREFUSED (still starting)");
      }
      return local.read(svc, fn);
    };
    const since = new Date();
    const r = await auditSince({ ...local, read: healing }, { since, prefix, settleS: 20 });
    expect(refusals).toBe(0);
    expect(r.orders.accepted).toBe(0);

    refusals = 1;
    await expect(auditSince({ ...local, read: healing }, { since, prefix, settleS: 0 })).rejects.toThrow(
      /ECONNREFUSED/,
    );
  }, 60_000);
});

// The order API's contract on the running service: idempotency, validation, reads.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api, eventually, openSaga, placeOrder, runId, type Saga } from "./helpers.ts";

let saga: Saga;
beforeAll(async () => {
  saga = await openSaga();
});
afterAll(async () => {
  await saga?.close();
});

const body = (run: string) => ({
  customerId: `api-${run}`,
  lines: [{ sku: `api-${run}-sku`, quantity: 1, unitPrice: 500 }],
});

describe("Idempotency-Key", () => {
  test("the same key and body return the same order with 200", async () => {
    const run = runId();
    const key = randomUUID();
    const first = await placeOrder(saga, body(run).customerId, body(run).lines, key);
    const again = await placeOrder(saga, body(run).customerId, body(run).lines, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const rows = await saga.db.order.query(`SELECT 1 FROM orders WHERE customer_id = $1`, [
      body(run).customerId,
    ]);
    expect(rows.rowCount).toBe(1);
  });

  test("ten concurrent requests with one key create one order", async () => {
    const run = runId();
    const key = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => placeOrder(saga, body(run).customerId, body(run).lines, key)),
    );
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
  });

  test("the same key with another body is a 409 conflict", async () => {
    const run = runId();
    const key = randomUUID();
    await placeOrder(saga, body(run).customerId, body(run).lines, key);
    const other = await placeOrder(
      saga,
      body(run).customerId,
      [{ sku: "x", quantity: 2, unitPrice: 1 }],
      key,
    );
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  test("a request without the key is refused with a problem", async () => {
    const r = await api(saga.url.order, "POST", "/orders", body(runId()));
    expect(r.status).toBe(400);
    expect(r.headers.get("content-type")).toMatch(/application\/problem\+json/);
    expect(r.body.code).toBe("IDEMPOTENCY_KEY_REQUIRED");
  });
});

describe("bad bodies get a 4xx problem, never a 5xx, and create nothing", () => {
  const key = { "idempotency-key": "bad-body" };
  test.each([
    ["malformed JSON", '{"customerId":', 400],
    [
      "an unknown field",
      { customerId: "c", lines: [{ sku: "s", quantity: 1, unitPrice: 1 }], coupon: "X" },
      400,
    ],
    [
      "an unknown line field",
      { customerId: "c", lines: [{ sku: "s", quantity: 1, unitPrice: 1, note: "" }] },
      400,
    ],
    ["a string quantity", { customerId: "c", lines: [{ sku: "s", quantity: "1", unitPrice: 1 }] }, 400],
    ["a zero quantity", { customerId: "c", lines: [{ sku: "s", quantity: 0, unitPrice: 1 }] }, 400],
    ["a fractional price", { customerId: "c", lines: [{ sku: "s", quantity: 1, unitPrice: 1.5 }] }, 400],
    ["a negative price", { customerId: "c", lines: [{ sku: "s", quantity: 1, unitPrice: -1 }] }, 400],
    ["no lines", { customerId: "c", lines: [] }, 400],
    ["no customer", { lines: [{ sku: "s", quantity: 1, unitPrice: 1 }] }, 400],
    ["an oversized body", { customerId: "c".repeat(100_000), lines: [] }, 413],
    [
      "a total beyond the limit",
      { customerId: "c", lines: [{ sku: "s", quantity: 10_000, unitPrice: 100_000_000 }] },
      400,
    ],
  ])("%s", async (_what, payload, status) => {
    const r = await api(saga.url.order, "POST", "/orders", payload, key);
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ status, code: expect.any(String), title: expect.any(String) });
  });

  test("no order was written by any of them", async () => {
    const r = await saga.db.order.query(`SELECT 1 FROM idempotency_keys WHERE key = 'bad-body'`);
    expect(r.rowCount).toBe(0);
  });
});

test("the caller's correlation id travels from the HTTP request into every event of the saga and back", async () => {
  const run = runId();
  const correlationId = `corr-${run}`;
  await api(saga.url.inventory, "PUT", `/stock/corr-${run}`, { available: 5 });
  const placed = await api(
    saga.url.order,
    "POST",
    "/orders",
    { customerId: `corr-${run}`, lines: [{ sku: `corr-${run}`, quantity: 1, unitPrice: 300 }] },
    { "idempotency-key": randomUUID(), "x-correlation-id": correlationId },
  );
  expect(placed.headers.get("x-correlation-id")).toBe(correlationId);
  const id = placed.body.id as string;
  const headersOf = async (db: Saga["db"]["order"]) =>
    (
      await db.query<{ event_type: string; corr: string }>(
        `SELECT event_type, headers->>'correlationId' AS corr FROM outbox WHERE aggregate_id = $1 ORDER BY id`,
        [id],
      )
    ).rows;
  const all = await eventually("inventory.reserved and points.granted written", async () => {
    const [o, i, p] = await Promise.all([
      headersOf(saga.db.order),
      headersOf(saga.db.inventory),
      headersOf(saga.db.points),
    ]);
    return o.length >= 1 && i.length >= 1 && p.length >= 1 ? [...o, ...i, ...p] : undefined;
  });
  expect(all.map((r) => r.event_type)).toEqual(["order.created", "inventory.reserved", "points.granted"]);
  expect(new Set(all.map((r) => r.corr))).toEqual(new Set([correlationId]));
});

describe("reads", () => {
  test("GET /orders/:id answers 404 problem for an unknown order and 400 for a malformed id", async () => {
    expect((await api(saga.url.order, "GET", `/orders/${randomUUID()}`)).body.code).toBe("NOT_FOUND");
    expect((await api(saga.url.order, "GET", "/orders/not-a-uuid")).status).toBe(400);
  });

  test("GET /orders pages by cursor without repeating an order", async () => {
    const run = runId();
    for (let i = 0; i < 5; i++) await placeOrder(saga, `list-${run}`, body(run).lines);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const q: string = `/orders?limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const r = await api(saga.url.order, "GET", q);
      expect(r.status).toBe(200);
      seen.push(...r.body.items.map((o: { id: string }) => o.id));
      cursor = r.body.nextCursor;
      if (!cursor || seen.length >= 20) break;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect((await api(saga.url.order, "GET", "/orders?status=BOGUS")).status).toBe(400);
  });

  test("every service publishes its OpenAPI document and Prometheus metrics", async () => {
    for (const base of Object.values(saga.url)) {
      expect((await api(base, "GET", "/openapi.json")).body.openapi).toMatch(/^3\./);
      const m = await fetch(`${base}/metrics`).then((r) => r.text());
      expect(m).toContain("outbox_");
      expect(m).toContain("consumer_messages_total");
    }
  });
});

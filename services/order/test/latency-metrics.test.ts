// The latencies the dashboards plot, read from the services' own /metrics after a few orders on the
// local stack: HTTP requests by route, order -> final state, and each consumer's handling time.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventually, finalOrders, openSaga, placeOrder, runId, type Saga, setStock } from "./helpers.ts";

let saga: Saga;
beforeAll(async () => {
  saga = await openSaga();
});
afterAll(async () => {
  await saga?.close();
});

/** The value of one sample (name and exact label set, in any order) on a /metrics page; 0 when absent. */
async function sample(base: string, name: string, labels: Record<string, string>): Promise<number> {
  const text = await fetch(`${base}/metrics`).then((r) => r.text());
  for (const line of text.split("\n")) {
    const m = /^([^{\s]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return 0;
}

describe("latency metrics on the services' /metrics", () => {
  test("orders reaching CONFIRMED and CANCELLED are timed from creation, with the HTTP and consumer hops", async () => {
    const run = runId();
    const sku = `metrics-${run}`;
    await setStock(saga, sku, 1);
    const order = saga.url.order;
    const finalCount = (status: string) => sample(order, "order_final_seconds_count", { status });
    const handled = (base: string, queue: string) =>
      sample(base, "consumer_handle_seconds_count", { queue, outcome: "done" });
    const posts = () =>
      sample(order, "http_request_duration_seconds_count", {
        method: "POST",
        route: "/orders",
        status_code: "201",
      });
    const before = {
      confirmed: await finalCount("CONFIRMED"),
      cancelled: await finalCount("CANCELLED"),
      replies: await handled(order, "order.saga-replies"),
      reserves: await handled(saga.url.inventory, "inventory.order-events"),
      posts: await posts(),
    };

    // One unit in stock: the first order is confirmed, the second rejected (CANCELLED).
    const ids: string[] = [];
    for (const customer of ["a", "b"]) {
      const r = await placeOrder(saga, `metrics-${run}-${customer}`, [{ sku, quantity: 1, unitPrice: 500 }]);
      expect(r.status).toBe(201);
      ids.push(r.body.id);
      await eventually("the order to leave PENDING", async () => {
        const row = await saga.db.order.query("SELECT 1 FROM orders WHERE id = $1 AND status <> 'PENDING'", [
          r.body.id,
        ]);
        return row.rowCount === 1 ? true : undefined;
      });
    }
    await eventually("both orders final", async () =>
      (await finalOrders(saga, ids)).length === 2 ? true : undefined,
    );

    // At least: an earlier test's late replies may finish other orders meanwhile.
    expect(await finalCount("CONFIRMED")).toBeGreaterThanOrEqual(before.confirmed + 1);
    expect(await finalCount("CANCELLED")).toBeGreaterThanOrEqual(before.cancelled + 1);
    expect(await posts()).toBeGreaterThanOrEqual(before.posts + 2);
    // order.saga-replies: inventory.reserved, inventory.rejected, points.granted and the cancel acks.
    expect(await handled(order, "order.saga-replies")).toBeGreaterThanOrEqual(before.replies + 3);
    expect(await handled(saga.url.inventory, "inventory.order-events")).toBeGreaterThanOrEqual(
      before.reserves + 2,
    );
    // A histogram's buckets are cumulative: the +Inf bucket holds every observation.
    const inf = await sample(order, "order_final_seconds_bucket", { status: "CONFIRMED", le: "+Inf" });
    expect(inf).toBe(await finalCount("CONFIRMED"));
  });
});

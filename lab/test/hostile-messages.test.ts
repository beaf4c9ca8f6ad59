// Forged and malformed messages on every consumer queue of the running saga, published as the broker
// admin (the one user the topic permissions do not stop). The property: each is parked with its reason,
// or, when well-formed, applied exactly once; no consumer loops on one or stops consuming.
import { randomUUID } from "node:crypto";
import { amqpUrls, openStack } from "@orderflow/infra";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { type ConfirmedPublisher, openConfirmedPublisher } from "@orderflow/testkit/publisher.ts";
import { serviceBase, serviceReady } from "@orderflow/testkit/service-kit.ts";
import amqp from "amqplib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const stack = openStack(undefined, false);
const run = randomUUID().slice(0, 8);
let conn: amqp.ChannelModel;
let publisher: ConfirmedPublisher;

beforeAll(async () => {
  for (const svc of ["order", "inventory", "points"] as const)
    await serviceReady(svc, serviceBase(stack, svc));
  conn = await amqp.connect(amqpUrls(stack)[0] as string);
  publisher = await openConfirmedPublisher(amqpUrls(stack), { name: "hostile-messages test" });
  const put = await fetch(`${serviceBase(stack, "inventory")}/stock/hostile-${run}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ available: 10 }),
  });
  expect(put.status).toBe(200);
});
afterAll(async () => {
  // Our parked copies leave the parking lots; everyone else's stay.
  const take = await conn.createChannel();
  for (const q of Object.values(QUEUES)) {
    for (;;) {
      const m = await take.get(`${q.queue}.parking`, { noAck: false });
      if (!m) break;
      if (String(m.properties.messageId).includes(run)) take.ack(m);
    }
  }
  await take.close();
  await conn.close();
  await publisher?.close();
});

const QUEUES = {
  inventory: { queue: "inventory.order-events", key: "order.created", other: "order.cancelled" },
  order: { queue: "order.saga-replies", key: "inventory.released", other: "points.reversed" },
  points: { queue: "points.order-events", key: "order.confirmed", other: "order.cancelled" },
} as const;

const publish = (routingKey: string, type: string, messageId: string, body: unknown) =>
  publisher.publish({
    exchange: "orderflow.events",
    routingKey,
    body: Buffer.from(JSON.stringify(body)),
    properties: {
      messageId,
      type,
      contentType: "application/json",
      persistent: true,
      headers: { "x-schema-version": 1 },
    },
  });

/** Our messages in a parking lot, by message id, with their reasons (they are put back, not taken). */
async function parkedOf(queue: string): Promise<Record<string, string>> {
  const peek = await conn.createChannel();
  const out: Record<string, string> = {};
  for (;;) {
    const m = await peek.get(`${queue}.parking`, { noAck: false });
    if (!m) break;
    const id = String(m.properties.messageId);
    if (id.includes(run)) out[id] = String(m.properties.headers?.["x-parked-reason"]);
  }
  await peek.close();
  return out;
}

const payloadFor = (type: string, orderId: string) =>
  type === "order.created"
    ? {
        orderId,
        customerId: `c-${orderId}`,
        lines: [{ sku: `hostile-${run}`, quantity: 1, unitPrice: 100 }],
        total: 100,
        createdAt: new Date().toISOString(),
      }
    : type === "order.confirmed"
      ? { orderId, customerId: `c-${orderId}`, total: 100 }
      : { orderId };

describe("forged and malformed messages on every consumer queue", () => {
  for (const [svc, q] of Object.entries(QUEUES)) {
    test(`${q.queue}: a NUL id, a foreign type under an owned key, a bound-breaking payload are parked; a well-formed forgery is applied once`, async () => {
      const orderId = `forged-${run}-${svc}`;
      const ids = {
        nul: `nul-\u0000-${run}-${svc}`,
        route: `route-${run}-${svc}`,
        big: `big-${run}-${svc}`,
        ok: `ok-${run}-${svc}`,
      };
      await publish(q.key, q.key, ids.nul, payloadFor(q.key, orderId));
      await publish(
        q.key,
        q.other,
        ids.route,
        q.other === "order.cancelled"
          ? { orderId, customerId: "c", reason: "r", wasConfirmed: false }
          : { orderId, customerId: "c", points: 1 },
      );
      await publish(q.key, q.key, ids.big, { ...payloadFor(q.key, orderId), orderId: "x".repeat(5_000) });
      // The same well-formed message twice: applied once (the second is a duplicate), never parked.
      const ok = payloadFor(q.key, orderId);
      await publish(q.key, q.key, ids.ok, ok);
      await publish(q.key, q.key, ids.ok, ok);

      const parked = await eventually(`three parked in ${q.queue}.parking`, async () => {
        const p = await parkedOf(q.queue);
        return Object.keys(p).length >= 3 ? p : undefined;
      });
      // AMQP carries the NUL byte in the id as it is; the parking lot keeps the id unchanged.
      expect(parked).toEqual({
        [ids.nul]: "invalid-header",
        [ids.route]: "misrouted",
        [ids.big]: "invalid-payload",
      });
      // The well-formed forgery was applied, once: inventory reserved one unit, points granted one point.
      // (An order service reply for an order it does not know changes nothing.) No intake check can tell
      // such an event from a real one; the order service's reconciliation finds the effect without an
      // order later and reverses it (services/README.md, Reconciliation both ways).
      const effect: Record<string, [string, "reserved" | "balance"]> = {
        inventory: [`/stock/hostile-${run}`, "reserved"],
        // Each queue's forgery names its own customer: inventory's forged order.created is reserved, and
        // points grants on that reservation too.
        points: [`/points/c-${orderId}`, "balance"],
      };
      const seen = effect[svc];
      if (seen) {
        const [path, field] = seen;
        const value = await eventually(`the forged ${field}`, async () => {
          const body = (await (await fetch(`${serviceBase(stack, svc as "order")}${path}`)).json()) as Record<
            string,
            number
          >;
          return (body[field] ?? 0) > 0 ? body[field] : undefined;
        });
        expect(value).toBe(1);
      }
      // Still consuming: the service is ready.
      const ready = await fetch(`${serviceBase(stack, svc as "order")}/health/ready`);
      expect(ready.status).toBe(200);
    });
  }
});

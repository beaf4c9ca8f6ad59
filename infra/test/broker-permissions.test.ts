import { afterAll, beforeAll, expect, test } from "vitest";
import { amqpUrls, BROKER_VHOST, type Stack } from "../src/index.ts";
import { type Conn, connectAny } from "./broker-helpers.ts";
import { requireHealthyStack } from "./stack-fixture.ts";

let s: Stack;
const open: Conn[] = [];
beforeAll(async () => {
  s = await requireHealthyStack();
});
afterAll(async () => {
  for (const c of open) await c.close().catch(() => {});
});

async function asService(svc: "order" | "inventory" | "points"): Promise<Conn> {
  const c = await connectAny(amqpUrls(s, svc));
  c.on("error", () => {}); // channel-level refusals surface on the channel; keep the connection quiet
  open.push(c);
  return c;
}

async function attempt(
  conn: Conn,
  fn: (ch: Awaited<ReturnType<Conn["createChannel"]>>) => Promise<unknown>,
): Promise<string> {
  const ch = await conn.createChannel();
  ch.on("error", () => {});
  try {
    await fn(ch);
    await ch.close();
    return "allowed";
  } catch (e) {
    return (e as Error).message;
  }
}

test("the broker has no guest user", async () => {
  const node = s.layout.rabbitmq.nodes[0];
  const auth = Buffer.from(`orderflow-admin:${s.secrets.brokerAdmin}`).toString("base64");
  const res = await fetch(`http://127.0.0.1:${node?.managementPort}/api/users`, {
    headers: { authorization: `Basic ${auth}` },
  });
  const users = (await res.json()) as { name: string }[];
  expect(users.map((u) => u.name)).not.toContain("guest");
});

test("a service user consumes only its own queue and cannot declare anything", async () => {
  const order = await asService("order");
  expect(await attempt(order, (ch) => ch.consume("order.saga-replies", () => {}))).toBe("allowed");
  expect(await attempt(order, (ch) => ch.consume("inventory.order-events", () => {}))).toMatch(
    /ACCESS_REFUSED/,
  );
  expect(await attempt(order, (ch) => ch.assertQueue("order.anything", { durable: true }))).toMatch(
    /ACCESS_REFUSED/,
  );
  expect(await attempt(order, (ch) => ch.checkQueue("order.saga-replies"))).toBe("allowed");
});

test("a service user publishes only to the events, retry and parking exchanges", async () => {
  const points = await asService("points");
  const publishTo = (exchange: string) =>
    attempt(points, async (ch) => {
      ch.publish(exchange, "nowhere", Buffer.from("{}"));
      // A refused publish closes the channel asynchronously; a round trip surfaces it.
      await ch.checkExchange("orderflow.events");
    });
  expect(await publishTo("orderflow.events")).toBe("allowed");
  expect(await publishTo("orderflow.retry")).toBe("allowed");
  expect(await publishTo("amq.topic")).toMatch(/ACCESS_REFUSED/);
  expect(BROKER_VHOST).toBe("orderflow");
});

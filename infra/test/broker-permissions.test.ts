import { createHash } from "node:crypto";
import fs from "node:fs";
import { EVENT_TYPES, publishedBy } from "@orderflow/contracts";
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterAll, beforeAll, expect, test } from "vitest";
import { amqpUrls, BROKER_VHOST, DEFINITIONS_FILE, readDefinitions, type Stack } from "../src/index.ts";
import { brokerUser, SERVICE_NAMES } from "../src/services.ts";
import { type Conn, connectAny } from "./broker-helpers.ts";

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

test("the running broker holds every binding of the definitions file, and the file's hash as imported", async () => {
  const node = s.layout.rabbitmq.nodes[0];
  const auth = Buffer.from(`orderflow-admin:${s.secrets.brokerAdmin}`).toString("base64");
  const get = async <T>(p: string) =>
    (await (
      await fetch(`http://127.0.0.1:${node?.managementPort}${p}`, {
        headers: { authorization: `Basic ${auth}` },
      })
    ).json()) as T;
  type Binding = { source: string; destination: string; routing_key: string };
  const key = (b: Binding) => `${b.source} -> ${b.destination} [${b.routing_key}]`;
  const live = new Set((await get<Binding[]>(`/api/bindings/${BROKER_VHOST}`)).map(key));
  expect(
    readDefinitions()
      .bindings.map(key)
      .filter((b) => !live.has(b)),
  ).toEqual([]);
  // A stack made before the file changed is imported again at its next `up` (infra/src/rabbitmq.ts).
  const sha = createHash("sha256").update(fs.readFileSync(DEFINITIONS_FILE)).digest("hex");
  const marker = await get<{ value: string }>("/api/global-parameters/orderflow_definitions_sha256");
  expect(marker.value).toBe(sha);
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
  const publishTo = (exchange: string, routingKey: string) =>
    attempt(points, async (ch) => {
      ch.publish(exchange, routingKey, Buffer.from("{}"));
      // A refused publish closes the channel asynchronously; a round trip surfaces it.
      await ch.checkExchange("orderflow.events");
    });
  // Keys no queue is bound to: an allowed publish lands nowhere. Which keys are allowed: below.
  expect(await publishTo("orderflow.events", "points.nowhere")).toBe("allowed");
  expect(await publishTo("orderflow.retry", "points.order-events.retry.999s")).toBe("allowed");
  expect(await publishTo("amq.topic", "points.nowhere")).toMatch(/ACCESS_REFUSED/);
  expect(BROKER_VHOST).toBe("orderflow");
});

// Probes use routing keys no queue is bound to, so an allowed publish lands nowhere.
const publishAs = async (svc: "order" | "inventory" | "points", exchange: string, routingKey: string) =>
  attempt(await asService(svc), async (ch) => {
    ch.publish(exchange, routingKey, Buffer.from("{}"));
    await ch.checkExchange("orderflow.events");
  });

test("the permission matrix: each service user publishes only event types under its own name (the contracts' owners)", async () => {
  const matrix: Record<string, string> = {};
  let cases = 0;
  for (const svc of SERVICE_NAMES) {
    for (const type of EVENT_TYPES) {
      const owner = publishedBy(svc).includes(type);
      const verdict = await publishAs(svc, "orderflow.events", `${type}.probe`);
      matrix[`${svc} ${type}`] =
        verdict === "allowed" ? "allowed" : /ACCESS_REFUSED/.test(verdict) ? "refused" : verdict;
      expect(matrix[`${svc} ${type}`], `${svc} publishing ${type}`).toBe(owner ? "allowed" : "refused");
      cases += 1;
    }
  }
  console.log(`broker permission matrix: ${cases} cases (service user x event type)`);
});

test("a service user republishes only into its own queue's retry tiers and parking lot", async () => {
  const own = "inventory.order-events";
  expect(await publishAs("inventory", "orderflow.retry", `${own}.retry.999s`)).toBe("allowed");
  expect(await publishAs("inventory", "orderflow.parking", `${own}.parking`)).toBe("allowed");
  // Another service's retry tier dead-letters into that service's work queue: the way around the events
  // exchange's permissions, closed as well.
  expect(await publishAs("inventory", "orderflow.retry", "points.order-events.retry.1s")).toMatch(
    /ACCESS_REFUSED/,
  );
  expect(await publishAs("inventory", "orderflow.parking", "points.order-events.parking")).toMatch(
    /ACCESS_REFUSED/,
  );
  expect(await publishAs("order", "", "points.order-events")).toMatch(/ACCESS_REFUSED/);
});

test("the consume matrix: each service user reads its own work queue and no other queue of the definitions", async () => {
  const own: Record<string, string> = {
    order: "order.saga-replies",
    inventory: "inventory.order-events",
    points: "points.order-events",
  };
  let cases = 0;
  for (const svc of SERVICE_NAMES) {
    const conn = await asService(svc);
    for (const q of readDefinitions().queues.map((x) => x.name)) {
      // A consumer that is cancelled at once: nothing it might have been sent stays with it.
      const verdict = await attempt(conn, async (ch) => {
        const { consumerTag } = await ch.consume(q, () => {});
        await ch.cancel(consumerTag);
      });
      expect(verdict === "allowed" ? "allowed" : verdict, `${svc} consuming ${q}`).toMatch(
        q === own[svc] ? /^allowed$/ : /ACCESS_REFUSED/,
      );
      cases += 1;
    }
  }
  console.log(`broker consume matrix: ${cases} cases (service user x queue)`);
});

test("the definitions file's write rules agree with the contracts: every event type matches its owner's rule and no other", () => {
  const rules = readDefinitions().topic_permissions.filter((t) => t.exchange === "orderflow.events");
  for (const svc of SERVICE_NAMES) {
    const rule = rules.find((t) => t.user === brokerUser(svc));
    expect(rule, `${svc} has a topic permission on orderflow.events`).toBeDefined();
    const re = new RegExp(rule?.write ?? "^$");
    for (const type of EVENT_TYPES)
      expect(re.test(type), `${svc} x ${type}`).toBe(publishedBy(svc).includes(type));
  }
});

// Black-box helpers for the points service's tests. They run against the service that `pnpm stack up`
// started: events go in through the broker (published to orderflow.events as the broker admin, in the
// wire format of packages/contracts), effects are read through the HTTP API, and replies are read from the
// service's own outbox table (the row whose causation id is the message we sent) or off the wire through
// a temporary queue of our own. Nothing here imports the service's source.
import { randomUUID } from "node:crypto";
import { amqpProperties, type EventPayload, type EventType } from "@orderflow/contracts";
import { adminUrl, amqpUrls, databaseName, openStack, type Stack } from "@orderflow/infra";
import amqp, { type ChannelModel, type ConfirmChannel, type ConsumeMessage } from "amqplib";
import pg from "pg";

export const EXCHANGE = "orderflow.events";

/** What went on the wire: the envelope a test chose, so it can check what the reply carries over. */
export interface Sent {
  messageId: string;
  correlationId: string;
  type: EventType;
  payload: unknown;
}

export interface ReplyRow {
  message_id: string;
  event_type: string;
  // biome-ignore lint/suspicious/noExplicitAny: payloads of several event types; assertions check them
  payload: any;
  headers: Record<string, string>;
  status: number;
}

export interface Points {
  stack: Stack;
  url: string;
  db: pg.Pool;
  publish<T extends EventType>(type: T, payload: EventPayload<T>, envelope?: Partial<Sent>): Promise<Sent>;
  /** Publishes exactly the same message again (same message id, same headers): a redelivery. */
  redeliver(sent: Sent): Promise<void>;
  /** Keys this file created (orders, and SKUs or customers): close() deletes their rows. */
  created: { orders: Set<string>; keys: Set<string> };
  /** Deletes the rows of what this file created, then closes the broker and database connections. */
  close(): Promise<void>;
}

export async function openPoints(): Promise<Points> {
  const stack = openStack(undefined, false);
  const url = `http://127.0.0.1:${stack.layout.servicePorts.points}`;
  // A service restarted by an earlier test file (or by its supervisor) may need a few seconds.
  await eventually(
    `the points service to be ready at ${url} (is the stack up? \`pnpm stack up\`)`,
    () =>
      fetch(`${url}/health/ready`).then(
        (r) => (r.ok ? true : undefined),
        () => undefined,
      ),
    60_000,
  );
  const db = new pg.Pool({ connectionString: adminUrl(stack.pg, databaseName("points")), max: 3 });
  const { model, ch } = await openAdminChannel(stack);
  const created = { orders: new Set<string>(), keys: new Set<string>() };
  const send = (s: Sent) =>
    new Promise<void>((resolve, reject) =>
      ch.publish(
        EXCHANGE,
        s.type,
        Buffer.from(JSON.stringify(s.payload)),
        amqpProperties({
          messageId: s.messageId,
          type: s.type,
          schemaVersion: 1,
          correlationId: s.correlationId,
          causationId: s.messageId, // the first message of its saga, as far as points can tell
          timestamp: Date.now(),
        }),
        (err) => (err ? reject(new Error(`broker nacked ${s.type} ${s.messageId}`)) : resolve()),
      ),
    );
  return {
    stack,
    url,
    db,
    created,
    async publish(type, payload, envelope = {}) {
      created.orders.add((payload as { orderId: string }).orderId);
      created.keys.add((payload as { customerId: string }).customerId);
      const sent: Sent = {
        messageId: randomUUID(),
        correlationId: randomUUID(),
        ...envelope,
        type,
        payload,
      };
      await send(sent);
      return sent;
    },
    redeliver: send,
    async close() {
      await ch.close().catch(() => {});
      await model.close().catch(() => {});
      // The test orders exist nowhere but here: without this, their grants would show up as
      // unexplained balances in the order service's invariant check.
      await db.query(`DELETE FROM grants WHERE order_id = ANY($1::text[])`, [[...created.orders]]);
      await db.query(`DELETE FROM accounts WHERE customer_id = ANY($1::text[])`, [[...created.keys]]);
      await db.end();
    },
  };
}

async function openAdminChannel(stack: Stack): Promise<{ model: ChannelModel; ch: ConfirmChannel }> {
  const model = await amqp.connect(amqpUrls(stack)[0] as string);
  model.on("error", () => {}); // a node stopped under the test must not crash the test process
  const ch = await model.createConfirmChannel();
  return { model, ch };
}

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies of many shapes; assertions check them
export async function api(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body !== undefined ? { "content-type": "application/json" } : {},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A customer's balance and grants (a customer never seen has balance 0 and no grants). */
export async function pointsOf(svc: Points, customerId: string) {
  const r = await api(svc.url, "GET", `/points/${encodeURIComponent(customerId)}`);
  if (r.status !== 200) throw new Error(`GET /points/${customerId}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as {
    customerId: string;
    balance: number;
    grants: { orderId: string; customerId: string; points: number; status: string }[];
  };
}

/** The grant recorded for an order, or undefined while there is none (404). */
export async function grantOf(svc: Points, orderId: string) {
  const r = await api(svc.url, "GET", `/grants/${encodeURIComponent(orderId)}`);
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(`GET /grants/${orderId}: ${r.status}`);
  return r.body as { orderId: string; customerId: string; points: number; status: string };
}

/** Every reply the service wrote for one incoming message: its outbox rows (archived ones included). */
export async function repliesTo(svc: Points, messageId: string): Promise<ReplyRow[]> {
  const cols = "message_id::text, event_type, payload, headers, status, id";
  const r = await svc.db.query<ReplyRow>(
    `SELECT message_id, event_type, payload, headers, status FROM (
       SELECT ${cols} FROM outbox WHERE headers->>'causationId' = $1
       UNION ALL SELECT ${cols} FROM outbox_archive WHERE headers->>'causationId' = $1) r ORDER BY id`,
    [messageId],
  );
  return r.rows;
}

/** Waits for the (first) reply to an incoming message. */
export const replyTo = (svc: Points, messageId: string): Promise<ReplyRow> =>
  eventually(`a reply with causation id ${messageId}`, async () => (await repliesTo(svc, messageId))[0]);

/** True once the service's inbox holds the message: it was applied (or skipped as a late event). */
export async function inboxHas(svc: Points, messageId: string): Promise<boolean> {
  const r = await svc.db.query(`SELECT 1 FROM inbox WHERE message_id = $1`, [messageId]);
  return (r.rowCount ?? 0) > 0;
}

/**
 * How many messages of `type` the service's consumer has recognised as duplicates so far (inbox or
 * early-skip cache), from its Prometheus metrics: the only outside sign that a redelivery was handled.
 */
export async function duplicatesSeen(svc: Points, type: EventType): Promise<number> {
  const text = await fetch(`${svc.url}/metrics`).then((r) => r.text());
  let n = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith("consumer_messages_total{")) continue;
    if (!line.includes(`outcome="duplicate`) || !line.includes(`type="${type}"`)) continue;
    n += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return n;
}

/** Polls until `check` returns a value, or fails after the deadline (never a fixed sleep). */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A temporary queue of our own, bound to reply routing keys on orderflow.events: it sees each reply as
 * the broker delivered it (properties and headers included). Exclusive and auto-delete, and deleted by
 * close() as well.
 */
export interface ReplyTap {
  /** Waits for the message whose x-causation-id is `causationId`. */
  next(causationId: string, timeoutMs?: number): Promise<ConsumeMessage>;
  close(): Promise<void>;
}

export async function tapReplies(stack: Stack, routingKeys: readonly string[]): Promise<ReplyTap> {
  const { model, ch } = await openAdminChannel(stack);
  const { queue } = await ch.assertQueue("", { exclusive: true, autoDelete: true, durable: false });
  for (const rk of routingKeys) await ch.bindQueue(queue, EXCHANGE, rk);
  const seen: ConsumeMessage[] = [];
  await ch.consume(queue, (m) => m && seen.push(m), { noAck: true });
  return {
    next: (causationId, timeoutMs = 30_000) =>
      eventually(
        `a reply on the wire with x-causation-id ${causationId}`,
        async () => seen.find((m) => m.properties.headers?.["x-causation-id"] === causationId),
        timeoutMs,
      ),
    async close() {
      await ch.deleteQueue(queue).catch(() => {});
      await ch.close().catch(() => {});
      await model.close().catch(() => {});
    },
  };
}

export const runId = () => randomUUID().slice(0, 8);

/** An order.confirmed payload for a fresh order (UUID: the order service keys orders by UUID) and customer. */
export function orderConfirmed(
  total: number,
  customerId = `pts-${runId()}`,
): EventPayload<"order.confirmed"> {
  return { orderId: randomUUID(), customerId, total };
}

export const orderCancelled = (
  o: { orderId: string; customerId: string },
  reason = "customer asked",
  wasConfirmed = true,
): EventPayload<"order.cancelled"> => ({
  orderId: o.orderId,
  customerId: o.customerId,
  reason,
  wasConfirmed,
});

// The shared kit of the services' black-box tests (services/*/test): they run against the services that
// `pnpm stack up` started. An event goes in through the broker as the broker admin, in the wire format of
// packages/contracts, straight to the work queue of the service under test (so no other service gets a
// copy); effects are read through the HTTP API; replies are read from the service's own outbox (the row
// whose causation id is the message we sent) or off the wire through a temporary queue of our own.
// Nothing here imports a service's source; each service's test/helpers.ts adds what is its own.
import { randomUUID } from "node:crypto";
import {
  amqpProperties,
  currentVersion,
  type EventPayload,
  type EventType,
  isEventType,
} from "@orderflow/contracts";
import { pgTransaction, type SqlTx } from "@orderflow/db";
import { adminUrl, amqpUrls, databaseName, openStack, type ServiceName, type Stack } from "@orderflow/infra";
import type { InboundEvent } from "@orderflow/messaging";
import amqp, { type ConsumeMessage } from "amqplib";
import pg from "pg";
import { expect } from "vitest";
import { eventually } from "./eventually.ts";
import { openConfirmedPublisher } from "./publisher.ts";

export const EXCHANGE = "orderflow.events";

export const runId = () => randomUUID().slice(0, 8);

export async function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies of many shapes; assertions check them
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** The bearer header /admin routes require (the token is one of the stack's secrets). */
export const adminHeaders = (stack: Stack): Record<string, string> => ({
  authorization: `Bearer ${stack.secrets.adminToken}`,
});

export const serviceBase = (stack: Stack, service: ServiceName) =>
  `http://127.0.0.1:${stack.layout.servicePorts[service]}`;

/** Waits for a service's readiness: one restarted by an earlier test (or its supervisor) may need a while. */
export const serviceReady = (service: ServiceName, base: string, timeoutMs = 60_000) =>
  eventually(
    `the ${service} service to be ready at ${base} (is the stack up? \`pnpm stack up\`)`,
    () =>
      fetch(`${base}/health/ready`).then(
        (r) => (r.ok ? true : undefined),
        () => undefined,
      ),
    { timeoutMs, intervalMs: 100 },
  );

/** A pool on a service's database as the admin (reads what the APIs claim, deletes what tests left). */
export const adminPool = (stack: Stack, service: ServiceName): pg.Pool =>
  new pg.Pool({ connectionString: adminUrl(stack.pg, databaseName(service)), max: 3 });

/** An event as a consumer hands it to a step, for calling a step directly: a fresh message id, first attempt. */
export function inboundEvent<T extends EventType>(type: T, payload: EventPayload<T>) {
  const messageId = randomUUID();
  return {
    type,
    version: currentVersion(type),
    payload,
    envelope: {
      messageId,
      type,
      schemaVersion: currentVersion(type),
      correlationId: messageId,
      causationId: randomUUID(),
    },
    attempt: 0,
    redelivered: false,
    headers: {},
    contentHash: "",
  } as InboundEvent<EventPayload<T>> & { type: T };
}

/** An outbox event as a step writes it; the fields the tests read. */
type StepWrite = { eventType: string; aggregateId: string; messageId?: string; payload?: unknown };

/** What a step called directly asked of its outbox, per event index: pass `each` as the step's. */
export function stepRecorder() {
  const enqueued: { i: number; e: StepWrite }[] = [];
  const marked: { i: number; causationId: string; only?: string | undefined }[] = [];
  const each = (i: number) => ({
    enqueue: async (e: StepWrite) => {
      enqueued.push({ i, e });
      return e.messageId ?? "";
    },
    markDone: async (causationId: string, only?: string) => {
      marked.push({ i, causationId, only });
    },
  });
  return { enqueued, marked, each };
}

type Recorder = ReturnType<typeof stepRecorder>;

/** A set-based step as the tests call it directly: one event, or several in one call. */
interface SetBasedStep<E> {
  (event: E, ctx: { tx: SqlTx } & ReturnType<Recorder["each"]>): Promise<unknown>;
  many(events: E[], ctx: { tx: SqlTx; each: Recorder["each"] }): Promise<unknown>;
}

/**
 * Applies a set-based step twice, each time in a transaction on `pool` that is rolled back: to the events
 * `prepare` set up, in one call, then one by one. Returns what `observe` saw after each, to compare.
 */
export async function inOneCallAndOneByOne<E, S extends { events: E[] }>(
  pool: pg.Pool,
  step: SetBasedStep<E>,
  prepare: (tx: SqlTx) => Promise<S>,
  observe: (tx: SqlTx, prepared: S, out: Recorder) => Promise<unknown>,
): Promise<{ together: unknown; alone: unknown }> {
  const seen: { together?: unknown; alone?: unknown } = {};
  for (const way of ["together", "alone"] as const)
    await inRolledBack(pool, async (tx) => {
      const prepared = await prepare(tx);
      const out = stepRecorder();
      if (way === "together") await step.many(prepared.events, { tx, each: out.each });
      else for (const [i, e] of prepared.events.entries()) await step(e, { tx, ...out.each(i) });
      seen[way] = await observe(tx, prepared, out);
    });
  return { together: seen.together, alone: seen.alone };
}

class Rollback extends Error {}

/**
 * Runs fn in a transaction on `pool` that is always rolled back: the running services never see its rows.
 * For steps tested against their real database without the broker.
 */
export async function inRolledBack(pool: pg.Pool, fn: (tx: SqlTx) => Promise<void>): Promise<void> {
  await pgTransaction(pool, async (tx) => {
    await fn(tx);
    throw new Rollback();
  }).catch((e: unknown) => {
    if (!(e instanceof Rollback)) throw e;
  });
}

/** A message as the broker delivered it. */
export type WireMessage = ConsumeMessage;

/** A plain channel as the broker admin, for reading what went on the wire. */
async function openAdminChannel(stack: Stack) {
  const model = await amqp.connect(amqpUrls(stack)[0] as string);
  model.on("error", () => {}); // a node stopped under the test must not crash the test process
  const ch = await model.createChannel();
  return { model, ch };
}

// ---- One service under test: inventory or points ----

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

export interface ServiceUnderTest {
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

/** A table whose rows a test file creates, and the column that holds the created key. */
export interface Rows {
  table: string;
  column: string;
}

export interface ServiceSpec {
  service: ServiceName;
  /** The service's own work queue: incoming events are published straight to it. */
  queue: string;
  /**
   * What close() deletes: the rows of the test's orders, then those of its keys. The test orders exist
   * nowhere but here: without this, their rows would show up as unexplained stock or balances in the
   * order service's invariant check.
   */
  cleanup: { orders: Rows; keys: Rows };
  /** The key an incoming event creates on its own, if any (points: the customer's account). */
  keyOf?: (payload: unknown) => string | undefined;
}

export async function openService(spec: ServiceSpec): Promise<ServiceUnderTest> {
  const stack = openStack(undefined, false);
  const url = serviceBase(stack, spec.service);
  await serviceReady(spec.service, url);
  const db = adminPool(stack, spec.service);
  const publisher = await openConfirmedPublisher(amqpUrls(stack), { name: `test ${spec.service}` });
  const created = { orders: new Set<string>(), keys: new Set<string>() };
  // To the default exchange: to the work queue named by the routing key, and to no other service. The
  // publish is mandatory, so a queue that is not there is an error, not a silent drop.
  const send = (s: Sent) =>
    publisher.publish({
      exchange: "",
      routingKey: spec.queue,
      body: Buffer.from(JSON.stringify(s.payload)),
      properties: amqpProperties({
        messageId: s.messageId,
        type: s.type,
        schemaVersion: currentVersion(s.type),
        correlationId: s.correlationId,
        causationId: s.messageId, // the first message of its saga, as far as the service can tell
        timestamp: Date.now(),
      }),
    });
  const deleteRows = ({ table, column }: Rows, keys: Set<string>) =>
    db.query(`DELETE FROM ${table} WHERE ${column} = ANY($1::text[])`, [[...keys]]);
  return {
    stack,
    url,
    db,
    created,
    async publish(type, payload, envelope = {}) {
      created.orders.add((payload as { orderId: string }).orderId);
      const key = spec.keyOf?.(payload);
      if (key !== undefined) created.keys.add(key);
      const sent: Sent = { messageId: randomUUID(), correlationId: randomUUID(), ...envelope, type, payload };
      await send(sent);
      return sent;
    },
    redeliver: send,
    async close() {
      await publisher.close();
      await deleteRows(spec.cleanup.orders, created.orders);
      await deleteRows(spec.cleanup.keys, created.keys);
      await db.end();
    },
  };
}

/** Every reply the service wrote for one incoming message: its outbox rows (archived ones included). */
export async function repliesTo(svc: ServiceUnderTest, messageId: string): Promise<ReplyRow[]> {
  const cols = "message_id::text, event_type, payload, headers, status, id";
  const r = await svc.db.query(
    `SELECT message_id, event_type, payload, headers, status FROM (
       SELECT ${cols} FROM outbox WHERE headers->>'causationId' = $1
       UNION ALL SELECT ${cols} FROM outbox_archive WHERE headers->>'causationId' = $1) r ORDER BY id`,
    [messageId],
  );
  return r.rows;
}

/** Waits for the (first) reply to an incoming message. */
export const replyTo = (svc: ServiceUnderTest, messageId: string): Promise<ReplyRow> =>
  eventually(`a reply with causation id ${messageId}`, async () => (await repliesTo(svc, messageId))[0]);

/** True once the service's inbox holds the message: it was applied (or skipped as a late event). */
export async function inboxHas(svc: ServiceUnderTest, messageId: string): Promise<boolean> {
  const r = await svc.db.query(`SELECT 1 FROM inbox WHERE message_id = $1`, [messageId]);
  return (r.rowCount ?? 0) > 0;
}

/**
 * How many messages of `type` the service's consumer has recognised as duplicates so far (inbox or
 * early-skip cache), from its Prometheus metrics: the only outside sign that a redelivery was handled.
 */
export async function duplicatesSeen(svc: ServiceUnderTest, type: EventType): Promise<number> {
  const text = await fetch(`${svc.url}/metrics`).then((r) => r.text());
  let n = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith("consumer_messages_total{")) continue;
    if (!line.includes(`outcome="duplicate`) || !line.includes(`type="${type}"`)) continue;
    n += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return n;
}

// ---- Replies on the wire ----

/**
 * A temporary queue of our own, bound to reply routing keys on orderflow.events: it sees each reply as
 * the broker delivered it (properties and headers included). Exclusive and auto-delete, and deleted by
 * close() as well.
 */
export interface ReplyTap {
  /** Waits for the message whose x-causation-id is `causationId`. */
  next(causationId: string, timeoutMs?: number): Promise<WireMessage>;
  close(): Promise<void>;
}

export async function tapReplies(svc: ServiceUnderTest, routingKeys: readonly string[]): Promise<ReplyTap> {
  const { model, ch } = await openAdminChannel(svc.stack);
  const { queue } = await ch.assertQueue("", { exclusive: true, autoDelete: true, durable: false });
  for (const rk of routingKeys) await ch.bindQueue(queue, EXCHANGE, rk);
  const seen: WireMessage[] = [];
  await ch.consume(queue, (m) => m && seen.push(m), { noAck: true });
  return {
    next: (causationId, timeoutMs = 30_000) =>
      eventually(
        `a reply on the wire with x-causation-id ${causationId}`,
        async () => seen.find((m) => m.properties.headers?.["x-causation-id"] === causationId),
        { timeoutMs, intervalMs: 100 },
      ),
    async close() {
      await ch.deleteQueue(queue).catch(() => {});
      await ch.close().catch(() => {});
      await model.close().catch(() => {});
    },
  };
}

/**
 * Checks what every reply carries: its type as routing key and AMQP type, the saga's correlation id, and
 * the incoming message's id as its causation id; its message id and body are the outbox row's. Returns
 * the body.
 */
export async function expectReplyOnWire(svc: ServiceUnderTest, sent: Sent, type: string, m: WireMessage) {
  const row = await replyTo(svc, sent.messageId);
  expect(m.fields.exchange).toBe("orderflow.events");
  expect(m.fields.routingKey).toBe(type);
  expect(m.properties.type).toBe(type);
  expect(m.properties.messageId).toBe(row.message_id);
  expect(m.properties.messageId).not.toBe(sent.messageId);
  expect(m.properties.contentType).toBe("application/json");
  expect(m.properties.correlationId).toBe(sent.correlationId);
  expect(m.properties.headers).toMatchObject({
    "x-correlation-id": sent.correlationId,
    "x-causation-id": sent.messageId,
    "x-schema-version": isEventType(type) ? currentVersion(type) : 1,
  });
  const body = JSON.parse(m.content.toString("utf8"));
  expect(body).toEqual(row.payload);
  return body;
}

// ---- Incoming events ----

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

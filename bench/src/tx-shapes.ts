// The hot write transaction of each service, twice: through Prisma's interactive transaction and as the
// same statements over pg BEGIN/COMMIT. The Prisma side calls the services' own code where it is a
// function (the inventory and points handlers); the order side copies create-order.ts's transaction body
// as it was when the service ran it on Prisma (the service now runs POST /orders on node-postgres itself): a measure of
// Prisma against pg, not of what the service runs.
import { createHash, randomUUID } from "node:crypto";
import { pgTransaction, type SqlTx } from "@orderflow/db";
import {
  createDb as createInventoryDb,
  MIGRATIONS_DIR as INVENTORY_MIGRATIONS,
  SUBSCRIPTIONS as INVENTORY_STEPS,
  type Tx as InventoryTx,
  unitsBySku,
} from "@orderflow/inventory";
import { claimInbox, type InboundEvent } from "@orderflow/messaging";
import {
  createDb as createOrderDb,
  MIGRATIONS_DIR as ORDER_MIGRATIONS,
  type Tx as OrderTx,
} from "@orderflow/order";
import { enqueue, markDone, withOutbox } from "@orderflow/outbox";
import {
  createDb as createPointsDb,
  MIGRATIONS_DIR as POINTS_MIGRATIONS,
  SUBSCRIPTIONS as POINTS_STEPS,
} from "@orderflow/points";
import type pg from "pg";

const MIGRATIONS = { order: ORDER_MIGRATIONS, inventory: INVENTORY_MIGRATIONS, points: POINTS_MIGRATIONS };
export const serviceMigrations = (service: "order" | "inventory" | "points") => MIGRATIONS[service];

export const SKUS = Array.from({ length: 50 }, (_, i) => `BENCH-${String(i).padStart(2, "0")}`);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)] as T;

/** Two lines of random SKUs, as a typical order; totals in cents. */
export function buildOrderBody() {
  return {
    customerId: `c-${Math.floor(Math.random() * 1_000)}`,
    lines: [
      { sku: pick(SKUS), quantity: 1 + Math.floor(Math.random() * 3), unitPrice: 1_999 },
      { sku: pick(SKUS), quantity: 1, unitPrice: 4_999 },
    ],
  };
}

function inbound<P>(type: InboundEvent["type"], payload: P): InboundEvent<P> & { type: typeof type } {
  const messageId = randomUUID();
  return {
    type,
    version: 1,
    payload,
    envelope: { messageId, type, schemaVersion: 1, correlationId: randomUUID(), causationId: randomUUID() },
    attempt: 0,
    redelivered: false,
    headers: {},
    contentHash: createHash("sha256").update(JSON.stringify(payload)).digest("hex"),
  };
}

export interface TxShape {
  service: "order" | "inventory" | "points";
  /** What one transaction writes, for the table. */
  writes: string;
  /** Rows every transaction needs to exist (stock). */
  seed(pool: pg.Pool): Promise<void>;
  prisma(url: string, poolMax: number): { run(): Promise<void>; close(): Promise<void> };
  raw(pool: pg.Pool): () => Promise<void>;
}

/** A shape whose messages can also be applied several per transaction (the batching section). */
export interface BatchableShape extends TxShape {
  prisma(
    url: string,
    poolMax: number,
  ): { run(): Promise<void>; runBatch(n: number): Promise<void>; close(): Promise<void> };
  rawBatch(pool: pg.Pool, n: number): () => Promise<void>;
  /** N messages in one transaction with set-based statements (one per kind of write, not per message). */
  rawSetBatch(pool: pg.Pool, n: number): () => Promise<void>;
}

// --- order: POST /orders ------------------------------------------------------------------------------

const orderEvent = (
  id: string,
  createdMessageId: string,
  body: ReturnType<typeof buildOrderBody>,
  total: number,
  createdAt: Date,
) => ({
  eventType: "order.created",
  aggregateType: "order",
  aggregateId: id,
  messageId: createdMessageId,
  payload: {
    orderId: id,
    customerId: body.customerId,
    lines: body.lines,
    total,
    createdAt: createdAt.toISOString(),
  },
  correlationId: createdMessageId,
  causationId: createdMessageId,
});

export const orderShape: TxShape = {
  service: "order",
  writes: "idempotency key + order + 2 lines + history + outbox row",
  async seed() {},
  prisma(url, poolMax) {
    const db = createOrderDb(url, poolMax);
    return {
      async run() {
        const body = buildOrderBody();
        const id = randomUUID();
        const createdMessageId = randomUUID();
        const createdAt = new Date();
        const total = body.lines.reduce((s, l) => s + l.quantity * l.unitPrice, 0);
        // create-order.ts's transaction as it was on Prisma, with the service's options.
        await withOutbox<OrderTx, void>(
          (fn) => db.$transaction(fn, { maxWait: 10_000, timeout: 15_000 }),
          () => {},
          async (tx, enq) => {
            await tx.idempotencyKey.create({ data: { key: randomUUID(), requestHash: "h", orderId: id } });
            await tx.order.create({
              data: {
                id,
                customerId: body.customerId,
                status: "PENDING",
                total,
                createdMessageId,
                correlationId: createdMessageId,
                createdAt,
                lines: { create: body.lines.map((l, i) => ({ lineNo: i + 1, ...l })) },
                history: {
                  create: { event: "order.created", detail: { messageId: createdMessageId }, at: createdAt },
                },
              },
            });
            await enq(orderEvent(id, createdMessageId, body, total, createdAt));
          },
        );
      },
      close: () => db.$disconnect(),
    };
  },
  raw(pool) {
    return async () => {
      const body = buildOrderBody();
      const id = randomUUID();
      const createdMessageId = randomUUID();
      const createdAt = new Date();
      const total = body.lines.reduce((s, l) => s + l.quantity * l.unitPrice, 0);
      await withOutbox(
        (fn) => pgTransaction(pool, fn),
        () => {},
        async (tx, enq) => {
          await tx.$executeRawUnsafe(
            "INSERT INTO idempotency_keys (key, request_hash, order_id) VALUES ($1, $2, $3::uuid)",
            randomUUID(),
            "h",
            id,
          );
          await tx.$executeRawUnsafe(
            `INSERT INTO orders (id, customer_id, status, total, created_message_id, correlation_id, created_at, updated_at)
             VALUES ($1::uuid, $2, 'PENDING', $3, $4::uuid, $4, $5, $5)`,
            id,
            body.customerId,
            total,
            createdMessageId,
            createdAt,
          );
          await tx.$executeRawUnsafe(
            `INSERT INTO order_lines (order_id, line_no, sku, quantity, unit_price)
             SELECT $1::uuid, l.n, l.sku, l.q, l.p
               FROM unnest($2::text[], $3::int[], $4::int[]) WITH ORDINALITY AS l(sku, q, p, n)`,
            id,
            body.lines.map((l) => l.sku),
            body.lines.map((l) => l.quantity),
            body.lines.map((l) => l.unitPrice),
          );
          await tx.$executeRawUnsafe(
            `INSERT INTO order_history (order_id, at, event, detail) VALUES ($1::uuid, $2, 'order.created', $3::jsonb)`,
            id,
            createdAt,
            JSON.stringify({ messageId: createdMessageId }),
          );
          await enq(orderEvent(id, createdMessageId, body, total, createdAt));
        },
      );
    };
  },
};

// --- inventory: order.created -> reserve ------------------------------------------------------------

async function seedStock(pool: pg.Pool): Promise<void> {
  await pool.query(
    "INSERT INTO stock (sku, available) SELECT unnest($1::text[]), 1000000000 ON CONFLICT (sku) DO NOTHING",
    [SKUS],
  );
}

const createdEvent = () => {
  const body = buildOrderBody();
  return inbound("order.created", {
    orderId: randomUUID(),
    customerId: body.customerId,
    lines: body.lines,
    total: body.lines.reduce((s, l) => s + l.quantity * l.unitPrice, 0),
    createdAt: new Date().toISOString(),
  });
};

type CreatedEvent = ReturnType<typeof createdEvent>;

/** inventory's reserve as raw SQL: the same statements the handler sends through Prisma. */
async function reserveRaw(tx: SqlTx, e: CreatedEvent): Promise<void> {
  await claimInbox(tx, "inventory", e.envelope.messageId, e.type);
  const { orderId } = e.payload;
  await tx.$queryRawUnsafe("SELECT 1 FROM reservations WHERE order_id = $1", orderId);
  const wanted = unitsBySku(e.payload.lines);
  await tx.$queryRawUnsafe(
    "SELECT sku, available FROM stock WHERE sku = ANY($1::text[]) ORDER BY sku FOR UPDATE",
    wanted.map((w) => w.sku),
  );
  for (const w of wanted)
    await tx.$executeRawUnsafe(
      "UPDATE stock SET available = available - $2, reserved = reserved + $2, updated_at = now() WHERE sku = $1",
      w.sku,
      w.quantity,
    );
  const replyId = randomUUID();
  await tx.$executeRawUnsafe(
    "INSERT INTO reservations (order_id, status, lines, reply_message_id) VALUES ($1, 'RESERVED', $2::jsonb, $3::uuid)",
    orderId,
    JSON.stringify(wanted),
    replyId,
  );
  await enqueue(tx, {
    eventType: "inventory.reserved",
    aggregateType: "reservation",
    aggregateId: orderId,
    messageId: replyId,
    payload: { orderId, lines: wanted, customerId: e.payload.customerId, total: e.payload.total },
    correlationId: e.envelope.correlationId,
    causationId: e.envelope.messageId,
  });
}

/**
 * A batch locks every stock row it will touch first, in SKU order: messages applied one after another in
 * one transaction would otherwise lock SKUs out of order across batches and deadlock.
 */
async function lockBatchStock(tx: SqlTx, events: CreatedEvent[]): Promise<void> {
  const skus = [...new Set(events.flatMap((e) => e.payload.lines.map((l) => l.sku)))].sort();
  await tx.$queryRawUnsafe("SELECT sku FROM stock WHERE sku = ANY($1::text[]) ORDER BY sku FOR UPDATE", skus);
}

/** The batch as set-based SQL: 6 statements for N messages instead of about 7 per message. */
async function reserveSetBased(tx: SqlTx, events: CreatedEvent[]): Promise<void> {
  const claimed = new Set(
    (
      await tx.$queryRawUnsafe<{ message_id: string }[]>(
        `INSERT INTO inbox (consumer, message_id, message_type)
         SELECT 'inventory', unnest($1::text[]), 'order.created' ON CONFLICT DO NOTHING RETURNING message_id`,
        events.map((e) => e.envelope.messageId),
      )
    ).map((r) => r.message_id),
  );
  const fresh = events.filter((e) => claimed.has(e.envelope.messageId));
  const decided = new Set(
    (
      await tx.$queryRawUnsafe<{ order_id: string }[]>(
        "SELECT order_id FROM reservations WHERE order_id = ANY($1::text[])",
        fresh.map((e) => e.payload.orderId),
      )
    ).map((r) => r.order_id),
  );
  const todo = fresh
    .filter((e) => !decided.has(e.payload.orderId))
    .map((e) => ({ e, wanted: unitsBySku(e.payload.lines) }));
  const total = new Map<string, number>();
  for (const t of todo) for (const w of t.wanted) total.set(w.sku, (total.get(w.sku) ?? 0) + w.quantity);
  const skus = [...total.keys()].sort();
  const stock = await tx.$queryRawUnsafe<{ sku: string; available: number }[]>(
    "SELECT sku, available FROM stock WHERE sku = ANY($1::text[]) ORDER BY sku FOR UPDATE",
    skus,
  );
  // Decided in message order against the running availability, as one message at a time would.
  const available = new Map(stock.map((r) => [r.sku, r.available]));
  if (todo.some((t) => t.wanted.some((w) => (available.get(w.sku) ?? -1) < w.quantity)))
    throw new Error("bench stock ran out: the set-based batch does not model rejections");
  await tx.$executeRawUnsafe(
    `UPDATE stock SET available = available - v.q, reserved = reserved + v.q, updated_at = now()
       FROM unnest($1::text[], $2::int[]) AS v(sku, q) WHERE stock.sku = v.sku`,
    skus,
    skus.map((k) => total.get(k) ?? 0),
  );
  const replies = todo.map((t) => ({ ...t, replyId: randomUUID() }));
  await tx.$executeRawUnsafe(
    `INSERT INTO reservations (order_id, status, lines, reply_message_id)
     SELECT o, 'RESERVED', l, r FROM unnest($1::text[], $2::jsonb[], $3::uuid[]) AS v(o, l, r)`,
    replies.map((r) => r.e.payload.orderId),
    replies.map((r) => JSON.stringify(r.wanted)),
    replies.map((r) => r.replyId),
  );
  await tx.$executeRawUnsafe(
    `INSERT INTO outbox (message_id, event_type, aggregate_type, aggregate_id, payload, headers)
     SELECT m, 'inventory.reserved', 'reservation', a, p, h
       FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $4::jsonb[]) AS v(m, a, p, h)`,
    replies.map((r) => r.replyId),
    replies.map((r) => r.e.payload.orderId),
    replies.map((r) => {
      const { orderId, customerId, total } = r.e.payload;
      return JSON.stringify({ orderId, lines: r.wanted, customerId, total });
    }),
    replies.map((r) =>
      JSON.stringify({ correlationId: r.e.envelope.correlationId, causationId: r.e.envelope.messageId }),
    ),
  );
}

export const inventoryShape: BatchableShape = {
  service: "inventory",
  writes: "inbox row + stock rows locked and updated + reservation + outbox row",
  seed: seedStock,
  prisma(url, poolMax) {
    const db = createInventoryDb(url, poolMax);
    const reserve = INVENTORY_STEPS["order.created"];
    if (!reserve) throw new Error("inventory has no order.created step");
    const apply = async (tx: InventoryTx, e: CreatedEvent) => {
      // The consumer's transaction: inbox claim, then the service's step, same tx.
      await claimInbox(tx, "inventory", e.envelope.messageId, e.type);
      await reserve(e as Parameters<typeof reserve>[0], {
        tx,
        enqueue: (ev) => enqueue(tx, ev),
        markDone: (c, a) => markDone(tx, c, a).then(() => {}),
      });
    };
    return {
      async run() {
        const e = createdEvent();
        await db.$transaction((tx) => apply(tx, e));
      },
      async runBatch(n) {
        const events = Array.from({ length: n }, createdEvent);
        await db.$transaction(
          async (tx) => {
            await lockBatchStock(tx, events);
            for (const e of events) await apply(tx, e);
          },
          { timeout: 30_000 },
        );
      },
      close: () => db.$disconnect(),
    };
  },
  raw(pool) {
    return async () => {
      const e = createdEvent();
      await pgTransaction(pool, (tx) => reserveRaw(tx, e));
    };
  },
  rawBatch(pool, n) {
    return async () => {
      const events = Array.from({ length: n }, createdEvent);
      await pgTransaction(pool, async (tx) => {
        await lockBatchStock(tx, events);
        for (const e of events) await reserveRaw(tx, e);
      });
    };
  },
  rawSetBatch(pool, n) {
    return async () => {
      const events = Array.from({ length: n }, createdEvent);
      await pgTransaction(pool, (tx) => reserveSetBased(tx, events));
    };
  },
};

// --- points: inventory.reserved -> grant ------------------------------------------------------------

const reservedEvent = () =>
  inbound("inventory.reserved", {
    orderId: randomUUID(),
    lines: [{ sku: "SKU-1", quantity: 1 }],
    customerId: `c-${Math.floor(Math.random() * 1_000)}`,
    total: 6_997,
  });

export const pointsShape: TxShape = {
  service: "points",
  writes: "inbox row + grant lock + account upsert + grant + outbox row",
  async seed() {},
  prisma(url, poolMax) {
    const db = createPointsDb(url, poolMax);
    const grant = POINTS_STEPS["inventory.reserved"];
    if (!grant) throw new Error("points has no inventory.reserved step");
    return {
      async run() {
        const e = reservedEvent();
        await db.$transaction(async (tx) => {
          await claimInbox(tx, "points", e.envelope.messageId, e.type);
          await grant(e as Parameters<typeof grant>[0], {
            tx,
            enqueue: (ev) => enqueue(tx, ev),
            markDone: (c, a) => markDone(tx, c, a).then(() => {}),
          });
        });
      },
      close: () => db.$disconnect(),
    };
  },
  raw(pool) {
    return async () => {
      const e = reservedEvent();
      const { orderId, customerId, total } = e.payload as {
        orderId: string;
        customerId: string;
        total: number;
      };
      await pgTransaction(pool, async (tx: SqlTx) => {
        await claimInbox(tx, "points", e.envelope.messageId, e.type);
        await tx.$queryRawUnsafe(
          "SELECT status, points, customer_id FROM grants WHERE order_id = $1 FOR UPDATE",
          orderId,
        );
        const points = Math.floor(total / 100);
        await tx.$executeRawUnsafe(
          `INSERT INTO accounts (customer_id, balance) VALUES ($1, $2)
           ON CONFLICT (customer_id) DO UPDATE SET balance = accounts.balance + EXCLUDED.balance, updated_at = now()`,
          customerId,
          points,
        );
        const replyId = randomUUID();
        await tx.$executeRawUnsafe(
          "INSERT INTO grants (order_id, customer_id, points, status, reply_message_id) VALUES ($1, $2, $3, 'GRANTED', $4::uuid)",
          orderId,
          customerId,
          points,
          replyId,
        );
        await enqueue(tx, {
          eventType: "points.granted",
          aggregateType: "grant",
          aggregateId: orderId,
          messageId: replyId,
          payload: { orderId, customerId, points },
          correlationId: e.envelope.correlationId,
          causationId: e.envelope.messageId,
        });
      });
    };
  },
};

export const TX_SHAPES: TxShape[] = [orderShape, inventoryShape, pointsShape];

// Test fixtures over the real local stack: a fresh database per test file (migrated with the package's
// own migrations), an admin consumer that counts deliveries per message id at the broker, and small data
// factories.
import { spawn as spawnChild } from "node:child_process";
import { randomUUID } from "node:crypto";
import net from "node:net";
import { Writable } from "node:stream";
import { applyMigrations, pgTransaction } from "@orderflow/db";
import { adminUrl, amqpUrls, openStack } from "@orderflow/infra";
import { createLogger, type Logger, silentLogger } from "@orderflow/logging";
import {
  type ConfirmPublisher,
  type ConfirmPublisherOptions,
  createConfirmPublisher,
  type PublishOutcome,
} from "@orderflow/messaging";
import amqp, { type Channel, type ChannelModel, type MessageProperties } from "amqplib";
import pg from "pg";
import { createRelayConnection, enqueue, OUTBOX_MIGRATIONS_DIR, type OutboxEvent } from "../src/index.ts";

export const stack = openStack();
export const EXCHANGE = "orderflow.events";
/** order.created is bound to inventory.order-events only. */
export const ROUTED_KEY = "order.created";
export const ROUTED_QUEUE = "inventory.order-events";

export interface TestDb {
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

/** A new database with the outbox migrations applied; `drop()` removes it. */
export async function freshDatabase(prefix = "outbox_test"): Promise<TestDb> {
  const name = `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: adminUrl(stack.pg) });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = adminUrl(stack.pg, name);
  await applyMigrations({ databaseUrl: url, migrationsDirs: [OUTBOX_MIGRATIONS_DIR] });
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle client killed by the DROP ... WITH (FORCE) at teardown must not surface as an unhandled error.
  pool.on("error", () => {});
  return {
    url,
    pool,
    async drop() {
      await pool.end().catch(() => {});
      const c = new pg.Client({ connectionString: adminUrl(stack.pg) });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export function buildEvent(overrides: Partial<OutboxEvent> = {}): OutboxEvent {
  const orderId = randomUUID();
  return {
    eventType: ROUTED_KEY,
    aggregateType: "order",
    aggregateId: orderId,
    payload: { orderId, lines: [{ sku: "SKU-1", qty: 2 }], total: 1999 },
    correlationId: randomUUID(),
    traceparent: `00-${randomUUID().replaceAll("-", "")}-${randomUUID().replaceAll("-", "").slice(0, 16)}-01`,
    ...overrides,
  };
}

/** Enqueues `n` events in transactions of `perTx` rows; returns the message ids in order. */
export async function enqueueMany(
  pool: pg.Pool,
  n: number,
  perTx = 100,
  overrides: Partial<OutboxEvent> = {},
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += perTx) {
    const batch = await pgTransaction(pool, async (tx) => {
      const out: string[] = [];
      for (let j = i; j < Math.min(n, i + perTx); j++) out.push(await enqueue(tx, buildEvent(overrides)));
      return out;
    });
    ids.push(...batch);
  }
  return ids;
}

export async function statusCounts(pool: pg.Pool): Promise<Record<number, number>> {
  const r = await pool.query<{ status: number; n: number }>(
    "SELECT status, count(*)::int AS n FROM outbox GROUP BY status",
  );
  return Object.fromEntries(r.rows.map((x) => [x.status, x.n]));
}

/**
 * A logger that hands every line (debug and up) to `fn` as (level, event, fields): tests observe what the
 * relay and the publisher log.
 */
export function captureLog(
  fn: (level: string, event: string, fields: Record<string, unknown>) => void,
): Logger {
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n")) {
        if (!line) continue;
        // Each line names what happened under "event" (@orderflow/logging's message key).
        const { level, event, time: _t, name: _n, pid: _p, hostname: _h, ...fields } = JSON.parse(line);
        fn(level, event, fields);
      }
      done();
    },
  });
  return createLogger({ name: "test", level: "debug", destination });
}

/**
 * What the broker answered for every row a relay published, through the relay's afterPublish seam.
 * At-least-once means a row may go out twice only after a publish of it went unconfirmed (a confirm
 * timeout, a lost channel, a nack): `unexplained` names the duplicates that no such answer explains.
 */
export function publishAnswers() {
  const unconfirmed = new Map<string, string>();
  return {
    faults: {
      async afterPublish(rows: { messageId: string }[], outcomes: PublishOutcome[]) {
        outcomes.forEach((o, i) => {
          const id = rows[i]?.messageId;
          if (id && o.status !== "confirmed") unconfirmed.set(id, `${o.status}: ${o.reason}`);
        });
      },
    },
    unconfirmed,
    unexplained: (duplicates: string[]) => duplicates.filter((id) => !unconfirmed.has(id)),
    /** "none" or a count per answer, for the test's log line. */
    summary() {
      const by = new Map<string, number>();
      for (const r of unconfirmed.values()) by.set(r, (by.get(r) ?? 0) + 1);
      return by.size === 0 ? "none" : [...by].map(([r, n]) => `${n} ${r}`).join(", ");
    },
  };
}

/**
 * A relay publisher as the relay process builds it (its own connection, as the order service's user);
 * `close()` closes the connection too.
 */
export function orderPublisher(
  extra: ConfirmPublisherOptions & { urls?: string[]; reconnectDelayMs?: number } = {},
): ConfirmPublisher {
  const { urls, reconnectDelayMs, ...opts } = extra;
  const log = opts.log ?? silentLogger;
  const conn = createRelayConnection({
    urls: urls ?? amqpUrls(stack, "order"),
    log,
    ...(reconnectDelayMs !== undefined ? { reconnectDelayMs } : {}),
  });
  const publisher = createConfirmPublisher(conn, { ...opts, log });
  return {
    ...publisher,
    async close() {
      await publisher.close();
      await conn.close();
    },
  };
}

/**
 * Counts deliveries per message id on a queue, consuming as the broker admin. A delivery with
 * `redelivered` set is the broker handing the same publish out again, not a second publish, so it is
 * counted apart. Reconnects to the next node if its node dies.
 */
export interface BrokerCounter {
  /** Publishes per message id (first deliveries only). */
  published: Map<string, number>;
  /** The last delivery's AMQP properties and body per message id. */
  messages: Map<string, { properties: MessageProperties; body: string; routingKey: string }>;
  /** Every publish's message id in the order it arrived (first deliveries only, duplicates included). */
  arrivals: string[];
  redeliveries: number;
  total(): number;
  distinct(): number;
  duplicates(): string[];
  close(): Promise<void>;
}

export async function countDeliveries(
  queue: string,
  { purge = true, startNode = 0 } = {},
): Promise<BrokerCounter> {
  const urls = amqpUrls(stack);
  const published = new Map<string, number>();
  const messages: BrokerCounter["messages"] = new Map();
  const arrivals: string[] = [];
  let redeliveries = 0;
  let closed = false;
  let conn: ChannelModel | undefined;
  let ch: Channel | undefined;
  let next = startNode;

  async function connect(): Promise<void> {
    for (;;) {
      const url = urls[next % urls.length] as string;
      next++;
      try {
        const c = await amqp.connect(`${url}?heartbeat=5`);
        const channel = await c.createChannel();
        await channel.prefetch(500);
        c.on("error", () => {});
        c.on("close", () => {
          if (!closed && conn === c) {
            conn = undefined;
            setTimeout(() => void connect(), 1_500);
          }
        });
        // A channel the broker closes alone (a queue without a leader while the cluster boots) would
        // leave the connection up and the counter deaf: close the connection so it starts over.
        channel.on("error", () => {});
        channel.on("close", () => {
          if (!closed) void c.close().catch(() => {});
        });
        await channel.consume(queue, (msg) => {
          // The broker cancelled us (e.g. the queue's leader moved): start over on the next node.
          if (!msg) return void c.close().catch(() => {});
          const id = String(msg.properties.messageId);
          if (msg.fields.redelivered) redeliveries++;
          else {
            published.set(id, (published.get(id) ?? 0) + 1);
            arrivals.push(id);
          }
          messages.set(id, {
            properties: msg.properties,
            body: msg.content.toString(),
            routingKey: msg.fields.routingKey,
          });
          channel.ack(msg);
        });
        conn = c;
        ch = channel;
        return;
      } catch {
        if (closed) return;
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  }

  if (purge) await purgeQueues([queue]);
  await connect();
  return {
    published,
    messages,
    arrivals,
    get redeliveries() {
      return redeliveries;
    },
    total: () => [...published.values()].reduce((a, b) => a + b, 0),
    distinct: () => published.size,
    duplicates: () => [...published.entries()].filter(([, n]) => n > 1).map(([id]) => id),
    async close() {
      closed = true;
      await ch?.close().catch(() => {});
      await conn?.close().catch(() => {});
    },
  };
}

/** Runs `fn` with an admin channel on the first node that answers. */
export async function withAdminChannel<T>(fn: (ch: Channel) => Promise<T>): Promise<T> {
  let lastError: unknown;
  for (const url of amqpUrls(stack)) {
    let c: ChannelModel | undefined;
    try {
      c = await amqp.connect(url);
      c.on("error", () => {});
      const ch = await c.createChannel();
      ch.on("error", () => {});
      const r = await fn(ch);
      await ch.close();
      return r;
    } catch (e) {
      lastError = e;
    } finally {
      await c?.close().catch(() => {});
    }
  }
  throw lastError;
}

export async function purgeQueues(queues: string[]): Promise<void> {
  await withAdminChannel(async (ch) => {
    for (const q of queues) await ch.purgeQueue(q);
  });
}

/**
 * The relay as a child process under tsx, so a test can SIGKILL it: `relay-main.ts`, or a test entry that
 * composes the relay process with fault points.
 */
/** A port the OS says is free right now (for a child relay's metrics endpoint). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export function spawnRelay(env: Record<string, string>, entry = "packages/outbox/src/relay-main.ts") {
  const root = new URL("../../../", import.meta.url).pathname;
  const child = spawnChild(process.execPath, ["--import", "tsx", entry], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      OUTBOX_AMQP_URLS: amqpUrls(stack, "order").join(","),
      OUTBOX_RECONCILE: "off",
      OUTBOX_ARCHIVE: "off",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  return { child, output: () => output, exited };
}

// `pnpm stack smoke`: one trip through every part of the stack, as the services will use it:
// each service role writes and reads its own database, order-svc publishes an event with a confirm,
// inventory-svc consumes it from its quorum queue, and Redis answers.
import { randomUUID } from "node:crypto";
import amqp from "amqplib";
import pg from "pg";
import { amqpUrls } from "./index.ts";
import { serviceUrl } from "./postgres.ts";
import { pingRedis } from "./redis.ts";
import { SERVICE_NAMES } from "./services.ts";
import type { Stack } from "./stack.ts";

export interface SmokeStep {
  step: string;
  ok: boolean;
  ms: number;
  error?: string;
}

async function step(name: string, fn: () => Promise<void>): Promise<SmokeStep> {
  const t0 = performance.now();
  try {
    await fn();
    return { step: name, ok: true, ms: Math.round(performance.now() - t0) };
  } catch (e) {
    return { step: name, ok: false, ms: Math.round(performance.now() - t0), error: (e as Error).message };
  }
}

async function connectFirst(urls: string[]) {
  let last: unknown;
  for (const u of urls) {
    try {
      return await amqp.connect(u, { timeout: 5_000 });
    } catch (e) {
      last = e;
    }
  }
  throw last;
}

export async function smoke(s: Stack): Promise<SmokeStep[]> {
  const steps: SmokeStep[] = [];
  for (const svc of SERVICE_NAMES) {
    steps.push(
      await step(`${svc} role writes and reads its database`, async () => {
        const c = new pg.Client({ connectionString: serviceUrl(s.pg, svc), connectionTimeoutMillis: 5_000 });
        await c.connect();
        try {
          const r = await c.query<{ v: number }>(
            "CREATE TEMP TABLE smoke(v int); INSERT INTO smoke VALUES (42); SELECT v FROM smoke",
          );
          const rows = (Array.isArray(r) ? r.at(-1) : r) as pg.QueryResult<{ v: number }>;
          if (rows.rows[0]?.v !== 42) throw new Error("read back a different value");
        } finally {
          await c.end();
        }
      }),
    );
  }
  const id = randomUUID();
  steps.push(
    await step("order-svc publishes order.created with a publisher confirm", async () => {
      const conn = await connectFirst(amqpUrls(s, "order"));
      try {
        const ch = await conn.createConfirmChannel();
        await new Promise<void>((res, rej) =>
          ch.publish(
            "orderflow.events",
            "order.created",
            Buffer.from(JSON.stringify({ smoke: id })),
            { persistent: true, mandatory: true, messageId: id },
            (err) => (err ? rej(err) : res()),
          ),
        );
        await ch.close();
      } finally {
        await conn.close();
      }
    }),
  );
  steps.push(
    await step("inventory-svc consumes it from inventory.order-events", async () => {
      const conn = await connectFirst(amqpUrls(s, "inventory"));
      try {
        const ch = await conn.createChannel();
        const deadline = Date.now() + 10_000;
        for (;;) {
          const m = await ch.get("inventory.order-events", { noAck: false });
          if (m && m.properties.messageId === id) {
            ch.ack(m);
            break;
          }
          // Anything else is not ours: leave it for its real consumer.
          if (m) ch.nack(m, false, true);
          if (Date.now() > deadline) throw new Error("the smoke message did not arrive within 10 s");
          await new Promise((r) => setTimeout(r, 100));
        }
        await ch.close();
      } finally {
        await conn.close();
      }
    }),
  );
  steps.push(
    await step("redis answers PING", async () => {
      if (!(await pingRedis(s.layout.redis.port))) throw new Error("no PONG");
    }),
  );
  return steps;
}

// `pnpm stack smoke`: one trip through every part of the stack, as the services will use it:
// each service role writes and reads its own database, order-svc publishes an event with a confirm and
// it is routed by orderflow.events, Redis answers, and (when they run) every service is ready.
import { randomUUID } from "node:crypto";
import amqp from "amqplib";
import pg from "pg";
import { appsStatus } from "./apps/control.ts";
import { amqpUrlsFor as amqpUrls } from "./broker-urls.ts";
import type { Stack } from "./open-stack.ts";
import { serviceUrl } from "./postgres.ts";
import { pingRedis } from "./redis.ts";
import { SERVICE_NAMES } from "./services.ts";

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
  // The broker probe goes through a queue of its own (declared by the admin, deleted after): the real
  // work queues belong to the running services, which would consume (and park) a probe message.
  const id = randomUUID();
  // Under order-svc's own name: a service user may publish only routing keys that start with it.
  const probeKey = `order.smoke-probe.${id}`;
  const probeQueue = `smoke-${id}`;
  const admin = await connectFirst(amqpUrls(s));
  try {
    const setup = await admin.createChannel();
    await setup.assertQueue(probeQueue, {
      durable: false,
      autoDelete: false,
      arguments: { "x-expires": 60_000 },
    });
    await setup.bindQueue(probeQueue, "orderflow.events", probeKey);
    steps.push(
      await step("order-svc publishes to orderflow.events with a publisher confirm", async () => {
        const conn = await connectFirst(amqpUrls(s, "order"));
        try {
          const ch = await conn.createConfirmChannel();
          await new Promise<void>((res, rej) =>
            ch.publish(
              "orderflow.events",
              probeKey,
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
      await step("the message is routed and consumed back", async () => {
        const deadline = Date.now() + 10_000;
        for (;;) {
          const m = await setup.get(probeQueue, { noAck: true });
          if (m && m.properties.messageId === id) break;
          if (Date.now() > deadline) throw new Error("the smoke message did not arrive within 10 s");
          await new Promise((r) => setTimeout(r, 100));
        }
      }),
    );
    await setup.deleteQueue(probeQueue);
    await setup.close();
  } finally {
    await admin.close();
  }
  for (const a of await appsStatus(s)) {
    steps.push(
      await step(`${a.name} ${a.kind === "service" ? `is ready at ${a.url}` : "runs"}`, async () => {
        if (!a.healthy) throw new Error(`${a.name} is not healthy (see .stack/apps/)`);
      }),
    );
  }
  steps.push(
    await step("redis takes its password and answers PING", async () => {
      if (!(await pingRedis(s.layout.redis.port, s.secrets.redis))) throw new Error("no PONG");
    }),
  );
  return steps;
}

// Test helpers for talking to the real cluster as the broker admin.
import amqp from "amqplib";
import { amqpUrls, type Stack } from "../src/index.ts";
import { waitFor } from "../src/proc.ts";

export type Conn = Awaited<ReturnType<typeof amqp.connect>>;

/** Connects to the first node in `urls` (or every node in turn) that accepts the connection. */
export async function connectAny(urls: string[]): Promise<Conn> {
  let last: unknown;
  for (const url of urls) {
    try {
      return await amqp.connect(url, { timeout: 5_000 });
    } catch (e) {
      last = e;
    }
  }
  throw last instanceof Error ? last : new Error("no broker node accepted a connection");
}

/** Admin URLs of every node except `node` (e.g. a node about to be killed). */
export function urlsExcept(s: Stack, node: string): string[] {
  return amqpUrls(s).filter((_, i) => s.layout.rabbitmq.nodes[i]?.name !== node);
}

export async function purge(s: Stack, queues: string[]): Promise<void> {
  const conn = await connectAny(amqpUrls(s));
  try {
    const ch = await conn.createChannel();
    for (const q of queues) await ch.purgeQueue(q);
    await ch.close();
  } finally {
    await conn.close();
  }
}

/** Publishes one persistent message and resolves only once the broker confirmed it. */
export async function publishConfirmed(
  conn: Conn,
  exchange: string,
  routingKey: string,
  body: string,
  options: Record<string, unknown> = {},
): Promise<void> {
  const ch = await conn.createConfirmChannel();
  try {
    await new Promise<void>((resolve, reject) => {
      ch.publish(
        exchange,
        routingKey,
        Buffer.from(body),
        { persistent: true, mandatory: true, ...options },
        (err) => (err ? reject(err) : resolve()),
      );
    });
  } finally {
    await ch.close();
  }
}

/** Polls basic.get until a message arrives or the deadline passes. */
export async function getOne(conn: Conn, queue: string, timeoutMs: number) {
  const ch = await conn.createChannel();
  const msg = await waitFor(
    `a message on ${queue}`,
    async () => (await ch.get(queue, { noAck: false })) || undefined,
    {
      timeoutMs,
      intervalMs: 100,
    },
  );
  return { msg, ch };
}

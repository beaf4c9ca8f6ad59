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

/**
 * Polls basic.get on `queue` until a message arrives or the deadline passes. Right after a leader dies a
 * get can fail with `nodedown` and take its connection down, so each failure reconnects (to any of `urls`).
 * The caller acks the message on the returned channel and closes the returned connection.
 */
export async function getOne(urls: string[], queue: string, timeoutMs: number) {
  let conn: Conn | undefined;
  let ch: Awaited<ReturnType<Conn["createChannel"]>> | undefined;
  const msg = await waitFor(
    `a message on ${queue}`,
    async () => {
      try {
        if (!conn || !ch) {
          conn = await connectAny(urls);
          conn.on("error", () => {}); // a failed get surfaces as a rejected promise below
          ch = await conn.createChannel();
          ch.on("error", () => {});
        }
        return (await ch.get(queue, { noAck: false })) || undefined;
      } catch (e) {
        await conn?.close().catch(() => {});
        conn = undefined;
        ch = undefined;
        throw e;
      }
    },
    { timeoutMs, intervalMs: 200 },
  );
  if (!conn || !ch) throw new Error("unreachable: a message without a channel");
  return { msg, ch, conn };
}

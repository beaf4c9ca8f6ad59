import { amqpUrls, openStack, waitFor } from "@orderflow/infra";
import type { ConfirmChannel } from "amqplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BrokerConnection,
  createBrokerConnection,
  createConfirmPublisher,
  MessagingError,
  type OutgoingMessage,
} from "../src/index.ts";

const s = openStack();
const conn = createBrokerConnection({ urls: amqpUrls(s), name: "publisher-test" });
const FULL = `msgtest.full-${process.pid}`;
const SINK = `msgtest.sink-${process.pid}`;

const toQueue = (queue: string, id: string, body = id): OutgoingMessage => ({
  exchange: "",
  routingKey: queue,
  body: Buffer.from(body),
  properties: { messageId: id },
});

beforeAll(async () => {
  await conn.ready();
  // A quorum queue that holds one message and rejects the rest: the broker nacks those publishes.
  const ch = await conn.createChannel();
  await ch.assertQueue(FULL, {
    durable: true,
    arguments: { "x-queue-type": "quorum", "x-max-length": 1, "x-overflow": "reject-publish" },
  });
  await ch.assertQueue(SINK, { durable: true, arguments: { "x-queue-type": "quorum" } });
  await ch.close();
});
afterAll(async () => {
  const ch = await conn.createChannel();
  await ch.deleteQueue(FULL).catch(() => {});
  await ch.deleteQueue(SINK).catch(() => {});
  await ch.close().catch(() => {});
  await conn.close();
});

describe("confirm publisher", () => {
  it("rejects nacked publishes, and a run of nacks recycles the connection without counting as refusals", async () => {
    const p = createConfirmPublisher(conn, { recycleAfterNacks: 3 });
    const connectsBefore = conn.health().connects;
    // Quorum queues apply the length limit approximately: publish until the nacks start.
    const errors: unknown[] = [];
    for (let i = 0; i < 10 && errors.length < 2; i++) {
      await p.publish(toQueue(FULL, `m-${i}`)).catch((e) => void errors.push(e));
    }
    expect(errors).toHaveLength(2);
    expect(errors.every((e) => e instanceof MessagingError && e.code === "PUBLISH_NACKED")).toBe(true);
    // The third nack in a row is the run: unavailable (not the message's fault), and the connection recycles.
    const [third] = await p.publishBatch([toQueue(FULL, "m-third")]);
    expect(third).toEqual({ status: "unavailable", reason: "run of nacks" });
    const ch = await conn.ready(10_000).then(() => conn.createChannel());
    await ch.purgeQueue(FULL);
    await ch.close();
    expect(conn.health().connects).toBeGreaterThan(connectsBefore);
    // The next publish goes through the new connection's channel.
    await p.publish(toQueue(FULL, "after-recycle"));
    await p.close();
  });

  it("on a shared connection (a consumer's) a run of nacks recycles only the publisher's channel", async () => {
    const p = createConfirmPublisher(conn, { recycleAfterNacks: 3, recycle: "channel" });
    expect(await p.waitUntilConnected(10_000)).toBe(true);
    const connectsBefore = conn.health().connects;
    // Something else on the same connection, as the consumer's own channel would be.
    const neighbour = await conn.createChannel();
    let neighbourClosed = false;
    neighbour.on("close", () => {
      neighbourClosed = true;
    });
    const outcomes = [];
    for (let i = 0; i < 12 && outcomes.at(-1)?.status !== "unavailable"; i++)
      outcomes.push(...(await p.publishBatch([toQueue(FULL, `c-${i}`)])));
    expect(outcomes.at(-1)).toEqual({ status: "unavailable", reason: "run of nacks" });
    await neighbour.purgeQueue(FULL);
    // The publisher opens a new channel after the election window and publishes again...
    await p.publish(toQueue(FULL, "after-channel-recycle"));
    // ...on the same connection, whose other channels never noticed.
    expect(conn.health().connects).toBe(connectsBefore);
    expect(neighbourClosed).toBe(false);
    await neighbour.purgeQueue(FULL);
    await neighbour.close();
    await p.close();
  });

  it("caps publishes awaiting confirms: the extra ones wait for a slot, then go", async () => {
    const p = createConfirmPublisher(conn, { maxInFlight: 2 });
    expect(await p.waitUntilConnected(10_000)).toBe(true);
    let maxSeen = 0;
    const all = Array.from({ length: 6 }, (_, i) =>
      p.publish(toQueue(SINK, `cap-${i}`)).finally(() => {
        maxSeen = Math.max(maxSeen, p.inFlight());
      }),
    );
    await Promise.all(all);
    expect(maxSeen).toBeLessThanOrEqual(2);
    expect(p.inFlight()).toBe(0);
    await p.close();
  });

  it("refuses to publish after close", async () => {
    const p = createConfirmPublisher(conn);
    await p.close();
    await expect(p.publish(toQueue(FULL, "x"))).rejects.toMatchObject({ code: "CLOSED" });
  });

  it("gives one verdict per message of a batch: unroutable and oversize refused, the rest confirmed", async () => {
    const p = createConfirmPublisher(conn, { maxMessageBytes: 100 });
    expect(await p.waitUntilConnected(10_000)).toBe(true);
    const unrouted: OutgoingMessage = {
      exchange: "orderflow.events",
      routingKey: "msgtest.nobody-listens",
      body: Buffer.from("{}"),
      properties: { messageId: "unrouted-1" },
    };
    const outcomes = await p.publishBatch([
      toQueue(SINK, "routed-1"),
      unrouted,
      toQueue(SINK, "too-big", "x".repeat(101)),
      toQueue(SINK, "routed-2"),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["confirmed", "refused", "refused", "confirmed"]);
    await expect(p.publish({ ...unrouted, properties: { messageId: "unrouted-2" } })).rejects.toMatchObject({
      code: "UNROUTABLE",
    });
    await p.close();
  });

  it("with two channels, batches take them in turn, and a closed one is skipped until it is open again", async () => {
    // The real connection, counting what is published on each confirm channel the publisher opens.
    const opened: { ch: ConfirmChannel; published: number }[] = [];
    const counting: BrokerConnection = {
      ...conn,
      async createConfirmChannel() {
        const ch = await conn.createConfirmChannel();
        const entry = { ch, published: 0 };
        const publish = ch.publish.bind(ch);
        ch.publish = (...args: Parameters<ConfirmChannel["publish"]>) => {
          entry.published++;
          return publish(...args);
        };
        opened.push(entry);
        return ch;
      },
    };
    const p = createConfirmPublisher(counting, { channels: 2, recycle: "channel" });
    await waitFor("two channels open", () => opened.length === 2, { timeoutMs: 10_000 });
    const batch = (tag: string) => Array.from({ length: 50 }, (_, i) => toQueue(SINK, `${tag}-${i}`));
    const outcomes = await Promise.all(["a", "b", "c", "d"].map((t) => p.publishBatch(batch(t))));
    expect(outcomes.flat().every((o) => o.status === "confirmed")).toBe(true);
    expect(opened.map((o) => o.published)).toEqual([100, 100]);

    const [lost, kept] = opened as [(typeof opened)[number], (typeof opened)[number]];
    await lost.ch.close();
    const after = await p.publishBatch(batch("e"));
    expect(after.every((o) => o.status === "confirmed")).toBe(true);
    expect([lost.published, kept.published]).toEqual([100, 150]);
    // The lost channel is opened again, and batches take both once more.
    await waitFor("the lost channel open again", () => opened.length === 3, { timeoutMs: 10_000 });
    await Promise.all(["f", "g"].map((t) => p.publishBatch(batch(t))));
    expect(opened.reduce((n, o) => n + o.published, 0)).toBe(350);
    expect(opened[2]?.published).toBe(50);
    await p.close();
  });
});

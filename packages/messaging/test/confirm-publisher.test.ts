import { amqpUrls, openStack } from "@orderflow/infra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBrokerConnection, createConfirmPublisher, MessagingError } from "../src/index.ts";

const s = openStack();
const conn = createBrokerConnection({ urls: amqpUrls(s), name: "publisher-test" });
const FULL = `msgtest.full-${process.pid}`;
const SINK = `msgtest.sink-${process.pid}`;

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
  it("rejects nacked publishes and recycles its channel after a run of nacks", async () => {
    const p = createConfirmPublisher(conn, { recycleAfterFailures: 3 });
    // Quorum queues apply the length limit approximately: publish until the nacks start.
    const errors: unknown[] = [];
    let accepted = 0;
    for (let i = 0; i < 10 && errors.length < 3; i++) {
      await p.publish("", FULL, Buffer.from(`m-${i}`)).then(
        () => void accepted++,
        (e) => void errors.push(e),
      );
    }
    expect(errors).toHaveLength(3);
    expect(errors.every((e) => e instanceof MessagingError && e.code === "PUBLISH_NACKED")).toBe(true);
    expect(p.stats()).toMatchObject({ confirmed: accepted, failed: 3, recycled: 1 });
    // The next publish goes through a fresh channel.
    const ch = await conn.createChannel();
    await ch.purgeQueue(FULL);
    await ch.close();
    await p.publish("", FULL, Buffer.from("after recycle"));
    expect(p.stats().confirmed).toBe(accepted + 1);
    await p.close();
  });

  it("caps publishes awaiting confirms: the extra ones wait for a slot, then go", async () => {
    const p = createConfirmPublisher(conn, { maxInFlight: 2 });
    let maxSeen = 0;
    const all = Array.from({ length: 6 }, (_, i) =>
      p.publish("", SINK, Buffer.from(String(i)), { messageId: `cap-${i}` }).finally(() => {
        maxSeen = Math.max(maxSeen, p.stats().inFlight);
      }),
    );
    await Promise.all(all);
    expect(maxSeen).toBeLessThanOrEqual(2);
    expect(p.stats()).toMatchObject({ confirmed: 6, inFlight: 0 });
    await p.close();
  });

  it("refuses to publish after close", async () => {
    const p = createConfirmPublisher(conn);
    await p.close();
    await expect(p.publish("", FULL, Buffer.from("x"))).rejects.toMatchObject({ code: "CLOSED" });
  });

  it("rejects a publish that no queue takes as UNROUTABLE (mandatory), and confirms routable ones", async () => {
    const p = createConfirmPublisher(conn);
    await expect(
      p.publish("orderflow.events", "msgtest.nobody-listens", Buffer.from("{}"), { messageId: "unrouted-1" }),
    ).rejects.toMatchObject({ code: "UNROUTABLE" });
    await p.publish("", SINK, Buffer.from("{}"), { messageId: "routed-1" });
    expect(p.stats()).toMatchObject({ confirmed: 1, failed: 1, recycled: 0 });
    await p.close();
  });
});

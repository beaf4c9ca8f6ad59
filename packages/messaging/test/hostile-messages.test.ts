// Messages a careless or hostile publisher can send: each is parked with its reason (or applied once,
// when legitimate), never retried forever and never dropped on a cache's word.
import { randomUUID } from "node:crypto";
import { redisUrl, waitFor } from "@orderflow/infra";
import fc from "fast-check";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { createRedisDedupCache, type Handlers, PARK_HEADERS, parkingQueue } from "../src/index.ts";
import { startTestConsumer, WORK_QUEUE } from "./helpers/consumer.ts";
import { recordEffect } from "./helpers/db.ts";
import { buildOrderCreated } from "./helpers/factories.ts";
import { consumerSuite } from "./helpers/suite.ts";

const suite = consumerSuite("hostile");
const { s, running } = suite;
const PARKING = parkingQueue(WORK_QUEUE);

const parkedReasons = async (n: number) => {
  const parked = await waitFor(`${n} parked`, async () => {
    const count = (await suite.broker.ch.checkQueue(PARKING)).messageCount;
    return count >= n ? suite.broker.drain(PARKING) : undefined;
  });
  return Object.fromEntries(
    parked.map((m) => [String(m.properties.messageId), m.properties.headers?.[PARK_HEADERS.reason]]),
  );
};

describe("hostile messages", () => {
  it("parks a message id or key header with a NUL byte, a control character or 300 characters, and goes on", async () => {
    const c = await startTestConsumer(s, suite.db, { consumerName: "hostile-ids" });
    running.push(c);
    const nul = `nul-\u0000-${randomUUID()}`;
    const tab = `tab-\t-${randomUUID()}`;
    const long = `long-${"x".repeat(240)}`; // past 200; AMQP itself stops at 255
    const badCorrelation = `corr-${randomUUID()}`;
    for (const id of [nul, tab, long])
      await suite.broker.publishEvent("order.created", buildOrderCreated(), { messageId: id });
    await suite.broker.publishEvent("order.created", buildOrderCreated(), {
      messageId: badCorrelation,
      correlationId: "a\u0000b",
    });
    const good = await suite.broker.publishEvent("order.created", buildOrderCreated());

    const reasons = await parkedReasons(4);
    expect(reasons).toEqual({
      [nul]: "invalid-header",
      [tab]: "invalid-header",
      [long]: "invalid-header",
      [badCorrelation]: "invalid-header",
    });
    await waitFor("the good message applied", async () =>
      (await suite.db.effects()).some((e) => e.message_id === good),
    );
    // Parked once each, not cycled through the retry tiers.
    expect(c.outcomes.filter((o) => o.kind === "retried")).toEqual([]);
  });

  it("counts a database refusal of the message's own values before the handler: parked as poison, not retried uncounted", async () => {
    // A dedup key PostgreSQL cannot store: the inbox insert itself fails (22021), before the handler.
    const c = await startTestConsumer(s, suite.db, {
      consumerName: "hostile-key",
      dedupKey: (ev) => `key-\u0000-${ev.envelope.messageId}`,
    });
    running.push(c);
    const id = await suite.broker.publishEvent("order.created", buildOrderCreated());
    expect(await parkedReasons(1)).toEqual({ [id]: "poison" });
    expect(c.outcomes.filter((o) => o.kind === "retried")).toEqual([]);
  });

  it("parks a handler's data error (integer out of range) at once instead of retrying it through the tiers", async () => {
    const handlers: Handlers = {
      "order.created": async (ev, tx) => {
        // An amount past what the column holds, as a grant past INTEGER once was (22003).
        await tx.$executeRawUnsafe(`SELECT 2147483647 + $1::integer`, ev.payload.total);
        await recordEffect(tx, "hostile-range", ev.envelope.messageId, ev.payload.orderId);
      },
    };
    const c = await startTestConsumer(s, suite.db, { consumerName: "hostile-range", handlers });
    running.push(c);
    const id = await suite.broker.publishEvent("order.created", buildOrderCreated({ total: 1 }));
    expect(await parkedReasons(1)).toEqual({ [id]: "poison" });
    expect(c.outcomes.filter((o) => o.kind === "retried")).toEqual([]);
  });

  it("parks an event whose routing key is not its type: a key a publisher owns cannot carry a type it does not", async () => {
    const c = await startTestConsumer(s, suite.db, { consumerName: "hostile-route" });
    running.push(c);
    const id = randomUUID();
    // order.cancelled's key with an order.created inside: what a user allowed one key could forge.
    await suite.broker.publishRaw("order.cancelled", JSON.stringify(buildOrderCreated()), {
      contentType: "application/json",
      type: "order.created",
      messageId: id,
      headers: { "x-schema-version": 1 },
    });
    expect(await parkedReasons(1)).toEqual({ [id]: "misrouted" });
    expect(await suite.db.effects()).not.toContainEqual(expect.objectContaining({ message_id: id }));
  });

  it("counts and logs a second message under an applied id with another body, and applies only the first", async () => {
    const c = await startTestConsumer(s, suite.db, { consumerName: "hostile-conflict" });
    running.push(c);
    const id = randomUUID();
    const first = buildOrderCreated();
    await suite.broker.publishEvent("order.created", first, { messageId: id });
    await suite.broker.publishEvent("order.created", first, { messageId: id }); // a redelivery: same body
    await suite.broker.publishEvent("order.created", buildOrderCreated(), { messageId: id }); // another body
    await waitFor("three outcomes", () => c.outcomes.length === 3);
    // Deliveries run concurrently: the two copies may be judged in either order after the first commits.
    expect(c.outcomes.map((o) => o.kind).sort()).toEqual(["done", "duplicate", "duplicate-conflict"]);
    expect((await suite.db.effects()).filter((e) => e.message_id === id).map((e) => e.order_id)).toEqual([
      first.orderId,
    ]);
    expect(c.consumer.health().counts["duplicate-conflict"]).toBe(1);
  });

  it("parks a 5 MB free-text field as invalid-payload instead of storing it", async () => {
    const c = await startTestConsumer(s, suite.db, { consumerName: "hostile-size" });
    running.push(c);
    const id = await suite.broker.publishEvent("order.cancelled", {
      orderId: `o-${randomUUID().slice(0, 8)}`,
      customerId: "c-1",
      reason: "x".repeat(5 * 1024 * 1024),
      wasConfirmed: false,
    });
    expect(await parkedReasons(1)).toEqual({ [id]: "invalid-payload" });
  });

  it("applies a message whose id a foreign key in Redis claims as seen: the inbox, not the cache, decides", async () => {
    const prefix = `hostile-${Date.now()}`;
    const cache = createRedisDedupCache({ url: redisUrl(s), ttlMs: 600_000, keyPrefix: prefix });
    const redis = new Redis(redisUrl(s));
    try {
      const c = await startTestConsumer(s, suite.db, { consumerName: "hostile-cache", dedupCache: cache });
      running.push(c);
      const id = randomUUID();
      const order = buildOrderCreated();
      await redis.set(`${prefix}:hostile-cache:${id}`, "1");
      await suite.broker.publishEvent("order.created", order, { messageId: id });
      await waitFor("applied despite the planted key", async () =>
        (await suite.db.effects()).some((e) => e.message_id === id),
      );
      expect(c.outcomes.map((o) => o.kind)).toEqual(["cache-unconfirmed", "done"]);

      // A real duplicate is still skipped early, after the inbox confirmed it.
      await suite.broker.publishEvent("order.created", order, { messageId: id });
      await waitFor("duplicate skipped", () => c.outcomes.length === 3);
      expect(c.outcomes.at(-1)).toMatchObject({ kind: "duplicate-cache", messageId: id });
      expect((await suite.db.effects()).filter((e) => e.message_id === id)).toHaveLength(1);
    } finally {
      redis.disconnect();
      await cache.close();
    }
  });

  it("envelopes from fast-check: each one parked with its reason or applied exactly once, none retried", async () => {
    const c = await startTestConsumer(s, suite.db, { consumerName: "hostile-fc" });
    running.push(c);
    const text = fc.string({ unit: "binary", maxLength: 60 });
    const payload = fc.oneof(
      fc.constant(null).map(() => buildOrderCreated()),
      fc.record({ orderId: text, customerId: text }).map((o) => buildOrderCreated(o)),
      fc.anything(),
    );
    const arb = fc.record({
      id: fc.oneof(fc.uuid(), text),
      correlationId: fc.oneof(fc.constant(null), fc.uuid(), text),
      type: fc.constantFrom("order.created", "order.created", "order.cancelled", "points.granted", "x"),
      version: fc.constantFrom<unknown>(1, 1, 1, 2, "1", "x"),
      payload,
    });
    const seed = Date.now();
    const cases = fc.sample(arb, { numRuns: 60, seed });
    for (const [i, k] of cases.entries()) {
      // Unique per case, so "applied exactly once" is about this message; the index travels as a header.
      const messageId = `${k.id}${i}`;
      // Every case goes to this consumer's queue (routing key order.created), whatever type it claims.
      await suite.broker.publishRaw("order.created", JSON.stringify(k.payload) ?? "null", {
        contentType: "application/json",
        type: k.type,
        messageId,
        headers: {
          "x-schema-version": k.version,
          ...(k.correlationId === null ? {} : { "x-correlation-id": k.correlationId }),
          "x-case": i,
        },
      });
    }
    const terminal = () => c.outcomes.filter((o) => o.kind !== "retried" && o.kind !== "requeued");
    await waitFor("a verdict for every case", () => terminal().length >= cases.length, { timeoutMs: 60_000 });
    expect(c.outcomes.filter((o) => o.kind === "retried" || o.kind === "requeued")).toEqual([]);
    expect(terminal()).toHaveLength(cases.length);
    const parked = await waitFor("the parked cases", async () => {
      const want = terminal().filter((o) => o.kind === "parked").length;
      const n = (await suite.broker.ch.checkQueue(PARKING)).messageCount;
      return n >= want ? suite.broker.drain(PARKING) : undefined;
    });
    for (const m of parked) expect(String(m.properties.headers?.[PARK_HEADERS.reason] ?? "")).not.toBe("");
    const effects = await suite.db.effects();
    const applied = effects.filter((e) => e.consumer === "hostile-fc");
    expect(new Set(applied.map((e) => e.message_id)).size).toBe(applied.length);
    expect(parked.length + applied.length).toBe(cases.length);
    console.log(
      `hostile envelopes (seed ${seed}): ${cases.length} cases, ${applied.length} applied, ${parked.length} parked`,
    );
  });
});

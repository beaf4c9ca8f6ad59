import { openStack, redisUrl, startRedisServer, stopRedisServer, waitFor } from "@orderflow/infra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisDedupCache, type DedupCache } from "../src/index.ts";
import { type AdminBroker, openAdminBroker, purgeAll } from "./helpers/broker.ts";
import { startTestConsumer, type TestConsumer, WORK_QUEUE } from "./helpers/consumer.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/db.ts";
import { buildOrderCreated } from "./helpers/factories.ts";

const s = openStack();
let db: TestDatabase;
let broker: AdminBroker;
let cache: DedupCache;
let c: TestConsumer | undefined;
const NAME = "redis-outage";

beforeAll(async () => {
  db = await createTestDatabase(s, "redis");
  broker = await openAdminBroker(s);
  await purgeAll(broker, WORK_QUEUE);
  cache = createRedisDedupCache({ url: redisUrl(s), ttlMs: 600_000, keyPrefix: `test-${Date.now()}` });
});
afterAll(async () => {
  await c?.stop();
  await startRedisServer(s);
  await cache.close();
  await purgeAll(broker, WORK_QUEUE);
  await broker.close();
  await db.drop();
});

const publishAll = async (orders: { id: string; order: ReturnType<typeof buildOrderCreated> }[]) => {
  for (const o of orders) await broker.publishEvent("order.created", o.order, { messageId: o.id });
};
const batch = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}-${Date.now()}`, order: buildOrderCreated() }));

describe("Redis as an early skip only", () => {
  it("with Redis stopped mid-run, duplicates are still applied once (the database decides)", async () => {
    c = await startTestConsumer(s, db, { consumerName: NAME, dedupCache: cache });
    const consumer = c;
    const count = (kind: string) => consumer.outcomes.filter((o) => o.kind === kind).length;

    const first = batch("a", 5);
    await publishAll(first);
    await waitFor("first batch applied", () => count("done") === 5);
    await publishAll(first);
    await waitFor("duplicates skipped by Redis", () => count("duplicate-cache") === 5);

    const stop = await stopRedisServer(s);
    const second = batch("b", 5);
    await publishAll(first); // duplicates again, Redis down
    await publishAll(second); // new messages, Redis down
    await publishAll(second); // and their duplicates
    await waitFor("all handled without Redis", () => consumer.outcomes.length === 25, { timeoutMs: 30_000 });
    expect(count("done")).toBe(10);
    expect(count("duplicate")).toBe(10);
    expect(count("requeued") + count("retried") + count("parked")).toBe(0);
    expect(cache.stats().errors).toBeGreaterThan(0);
    console.log(`redis stopped at ${stop.finishedAt}; cache ${JSON.stringify(cache.stats())}`);

    const effects = await db.effects();
    const perId = new Map<string, number>();
    for (const e of effects) perId.set(e.message_id, (perId.get(e.message_id) ?? 0) + 1);
    expect(perId.size).toBe(10);
    expect([...perId.values()].every((n) => n === 1)).toBe(true);

    // Redis back: the cache is empty (nothing on disk) but the early skip resumes for newly applied ids.
    await startRedisServer(s);
    await waitFor("the cache reconnected", () => cache.available(), { timeoutMs: 15_000 });
    const third = batch("c", 1);
    await publishAll(third);
    await waitFor("third applied", () => count("done") === 11);
    await publishAll(third);
    await waitFor("Redis skipping again", () => count("duplicate-cache") === 6);
    expect(consumer.outcomes).toHaveLength(27);
  });
});

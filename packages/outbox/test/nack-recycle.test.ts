import { randomUUID } from "node:crypto";
import { pgTransaction } from "@orderflow/db";
import { silentLogger } from "@orderflow/logging";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRelay, enqueue } from "../src/index.ts";
import {
  buildEvent,
  captureLog,
  countDeliveries,
  EXCHANGE,
  freshDatabase,
  orderPublisher,
  ROUTED_QUEUE,
  type TestDb,
  withAdminChannel,
} from "./helpers.ts";

let db: TestDb;
const suffix = randomUUID().slice(0, 8);
// A queue that refuses everything: length limit 0 with reject-publish makes the broker nack each publish.
const FULL_QUEUE = `outbox-test.full.${suffix}`;
// Under the order service's name: its broker user may publish only routing keys that start with it.
const FULL_KEY = `order.test-full.${suffix}`;

async function makeQueue(limit: boolean) {
  await withAdminChannel(async (ch) => {
    await ch.deleteQueue(FULL_QUEUE);
    await ch.assertQueue(FULL_QUEUE, {
      durable: false,
      ...(limit ? { arguments: { "x-max-length": 0, "x-overflow": "reject-publish" } } : {}),
    });
    await ch.bindQueue(FULL_QUEUE, EXCHANGE, FULL_KEY);
  });
}

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await withAdminChannel((ch) => ch.deleteQueue(FULL_QUEUE)).catch(() => {});
  await db?.drop();
});

const rows = async (ids: string[]) =>
  (
    await db.pool.query<{ status: number; attempts: number; last_error: string | null }>(
      "SELECT status, attempts, last_error FROM outbox WHERE message_id = ANY($1)",
      [ids],
    )
  ).rows;

describe("nacks", () => {
  it("an isolated nack costs no attempt: the row waits, never fails, and goes out once the queue accepts", async () => {
    await makeQueue(true);
    const publisher = orderPublisher({ recycleAfterNacks: 5 });
    await publisher.waitUntilConnected(10_000);
    let nacks = 0;
    const relay = createRelay({
      log: captureLog((_l, event) => {
        if (event === "relay.message_nacked") nacks++;
      }),
      pool: db.pool,
      publisher,
      // A refusal's schedule that would fail the row within 40 ms: a nack must not take it.
      config: { pollIntervalMs: 20, backoffMs: [20, 20] },
    });
    relay.start();
    try {
      const id = await pgTransaction(db.pool, (tx) => enqueue(tx, buildEvent({ eventType: FULL_KEY })));
      relay.afterCommit([id]);
      await eventually("the row nacked twice", () => nacks >= 2);
      expect(await rows([id])).toEqual([{ status: 0, attempts: 0, last_error: null }]);
      await makeQueue(false);
      await eventually("the row sent", async () => (await rows([id]))[0]?.status === 1);
      // The confirmed publish is its only attempt.
      expect(await rows([id])).toEqual([{ status: 1, attempts: 1, last_error: null }]);
      await eventually("the message in the queue", async () => {
        const q = await withAdminChannel((ch) => ch.checkQueue(FULL_QUEUE));
        return q.messageCount === 1;
      });
    } finally {
      await relay.stop();
      await publisher.close();
    }
  });

  it("a run of nacks counts no attempt, moves the publisher to a fresh connection, and the rows go out once the queue accepts again", async () => {
    await makeQueue(true);
    const lost: string[] = [];
    const publisher = orderPublisher({
      recycleAfterNacks: 5,
      log: captureLog((_l, event, f) => {
        if (event === "amqp.lost") lost.push(String(f?.reason));
      }),
    });
    await publisher.waitUntilConnected(10_000);
    const relay = createRelay({
      log: silentLogger,
      pool: db.pool,
      publisher,
      config: { pollIntervalMs: 20, backoffMs: [20, 20], gateMinMs: 200, gateMaxMs: 1_000 },
    });
    const counter = await countDeliveries(ROUTED_QUEUE);
    relay.start();
    try {
      const ids = await pgTransaction(db.pool, async (tx) => {
        const out: string[] = [];
        for (let i = 0; i < 8; i++) out.push(await enqueue(tx, buildEvent({ eventType: FULL_KEY })));
        return out;
      });
      relay.afterCommit(ids);
      await eventually("the publisher recycled after the run of nacks", () =>
        lost.some((r) => r.includes("run of nacks")),
      );
      const during = await rows(ids);
      expect(during.every((r) => r.status === 0 && r.attempts === 0)).toBe(true);
      // Normal traffic still flows through the fresh connection.
      const ok = await pgTransaction(db.pool, (tx) => enqueue(tx, buildEvent()));
      relay.afterCommit([ok]);
      await eventually("a routable event delivered after the recycle", () => counter.published.has(ok));
      // The queue accepts again: the held rows go out, none failed.
      await makeQueue(false);
      await eventually("the held rows sent", async () => (await rows(ids)).every((r) => r.status === 1), {
        timeoutMs: 30_000,
      });
      // The broker's message count lags behind its confirms: wait for the number, never read it once.
      await eventually("all 8 held rows in the queue", async () => {
        const q = await withAdminChannel((ch) => ch.checkQueue(FULL_QUEUE));
        return q.messageCount === 8;
      });
    } finally {
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  });
});

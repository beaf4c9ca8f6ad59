import { pgTransaction } from "@orderflow/db";
import { silentLogger } from "@orderflow/logging";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClaimStrategy, createRelay, insertLeasedRows, leasedClaim, outboxRow } from "../src/index.ts";
import {
  buildEvent,
  countDeliveries,
  freshDatabase,
  orderPublisher,
  ROUTED_QUEUE,
  type TestDb,
} from "./helpers.ts";

let db: TestDb;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => db?.drop());

/** The default claim, counting the fast path's claims by id. */
function countingClaim() {
  const calls = { byIds: 0 };
  const claim: ClaimStrategy = {
    ...leasedClaim,
    byIds: (pool, ids, leaseMs) => {
      calls.byIds++;
      return leasedClaim.byIds(pool, ids, leaseMs);
    },
  };
  return { claim, calls };
}

const row = async (messageId: string) =>
  (
    await db.pool.query<{ status: number; attempts: number; due: boolean }>(
      "SELECT status, attempts, next_attempt_at <= now() AS due FROM outbox WHERE message_id = $1",
      [messageId],
    )
  ).rows[0];

const writeLeased = (leaseMs: number, n = 1) =>
  pgTransaction(db.pool, (tx) =>
    insertLeasedRows(
      tx,
      Array.from({ length: n }, () => outboxRow(buildEvent())),
      leaseMs,
    ),
  );

describe("rows written already leased to the fast path", () => {
  it("are published after the commit without a claim statement, once, and marked sent", async () => {
    const counter = await countDeliveries(ROUTED_QUEUE);
    const publisher = orderPublisher();
    const { claim, calls } = countingClaim();
    const relay = createRelay({ log: silentLogger, pool: db.pool, publisher, claim });
    relay.start();
    try {
      // A relay whose publisher is not connected yet hands leased rows to the sweep instead.
      await publisher.waitUntilConnected(10_000);
      expect(relay.insertLeaseMs).toBe(30_000);
      const rows = await writeLeased(relay.insertLeaseMs as number, 3);
      // Leased by the insert: the sweep cannot take them while the fast path holds them.
      expect((await row(rows[0]?.messageId as string))?.due).toBe(false);
      relay.publishLeased(rows);
      for (const r of rows) {
        await eventually("each row marked sent", async () => (await row(r.messageId))?.status === 1);
      }
      await eventually("three deliveries", () => counter.total() === 3);
      expect(calls.byIds).toBe(0);
      expect(counter.duplicates()).toEqual([]);
      expect((await row(rows[2]?.messageId as string))?.attempts).toBe(1);
    } finally {
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  });

  it("a batch's marks ride in the same statement: the answered rows are done, the new rows leased", async () => {
    const answered = await writeLeased(30_000, 2);
    const foreign = outboxRow(buildEvent());
    const replies = [outboxRow(buildEvent()), outboxRow(buildEvent())];
    const marks = [
      { causationId: answered[0]?.messageId as string },
      // Narrowed to another aggregate: it must not mark the row.
      { causationId: answered[1]?.messageId as string, onlyForAggregate: foreign.aggregateId },
      { causationId: "not-a-uuid" },
    ];
    const leased = await pgTransaction(db.pool, (tx) => insertLeasedRows(tx, replies, 30_000, marks));
    expect(leased.map((r) => r.messageId)).toEqual(replies.map((r) => r.messageId));
    expect((await row(answered[0]?.messageId as string))?.status).toBe(2);
    expect((await row(answered[1]?.messageId as string))?.status).toBe(0);
    for (const r of replies) expect(await row(r.messageId)).toMatchObject({ status: 0, due: false });
  });

  it("a claim strategy that is more than a lease offers writers no insert lease", async () => {
    const publisher = orderPublisher();
    const relay = createRelay({
      log: silentLogger,
      pool: db.pool,
      publisher,
      claim: { ...leasedClaim, leaseAtInsert: false },
    });
    try {
      expect(relay.insertLeaseMs).toBeUndefined();
    } finally {
      await publisher.close();
    }
  });

  it("rows the fast path cannot take are released to the sweep at once, not left to their lease", async () => {
    const counter = await countDeliveries(ROUTED_QUEUE);
    const publisher = orderPublisher();
    const relay = createRelay({
      log: silentLogger,
      pool: db.pool,
      publisher,
      config: { pollIntervalMs: 100 },
    });
    try {
      // Not started: the fast path takes nothing.
      const [leased] = await writeLeased(30_000);
      const id = leased?.messageId as string;
      relay.publishLeased([leased as NonNullable<typeof leased>]);
      await eventually("the lease released", async () => (await row(id))?.due === true, {
        timeoutMs: 10_000,
      });
      relay.start();
      // Well inside the 30 s lease: only a released row can be swept this soon.
      await eventually("the swept row at the broker", () => counter.published.has(id), { timeoutMs: 10_000 });
      await eventually("the swept row marked sent", async () => (await row(id))?.status === 1, {
        timeoutMs: 10_000,
      });
    } finally {
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  });

  it("stopping the relay releases the leased rows it had queued but not published", async () => {
    const counter = await countDeliveries(ROUTED_QUEUE);
    const publisher = orderPublisher();
    let unblock: () => void = () => {};
    const blocked = new Promise<void>((r) => {
      unblock = r;
    });
    const relay = createRelay({
      log: silentLogger,
      pool: db.pool,
      publisher,
      // One fast-path slot, held after its publish until the test lets go: the next rows must queue.
      config: { fastPathConcurrency: 1, pollIntervalMs: 60_000 },
      faults: { afterPublish: () => blocked },
    });
    relay.start();
    try {
      await publisher.waitUntilConnected(10_000);
      const first = await writeLeased(30_000);
      relay.publishLeased(first);
      await eventually("the first row at the broker", () =>
        counter.published.has(first[0]?.messageId as string),
      );
      const queued = await writeLeased(30_000, 2);
      relay.publishLeased(queued);
      const stopping = relay.stop(5_000);
      for (const r of queued) {
        await eventually("the queued row released", async () => (await row(r.messageId))?.due === true, {
          timeoutMs: 10_000,
        });
        expect((await row(r.messageId))?.status).toBe(0);
      }
      expect(counter.published.has(queued[0]?.messageId as string)).toBe(false);
      unblock();
      await stopping;
      await eventually(
        "the first row marked sent",
        async () => (await row(first[0]?.messageId as string))?.status === 1,
      );
    } finally {
      unblock();
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  });
});

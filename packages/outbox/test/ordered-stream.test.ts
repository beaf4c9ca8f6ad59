// Ordered streams at the relay: an ordered event type's rows carry a per-aggregate sequence, given in
// commit order, and leave one at a time: only the oldest open row of an aggregate is ever claimable. Run
// against the stack's PostgreSQL and broker cluster.
import { randomUUID } from "node:crypto";
import { HEADERS } from "@orderflow/contracts";
import { pgTransaction } from "@orderflow/db";
import type { ConfirmPublisher } from "@orderflow/messaging";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createRelay,
  enqueue,
  insertLeasedRows,
  leasedClaim,
  type OutboxEvent,
  outboxRow,
  redrive,
} from "../src/index.ts";
import { markSent } from "../src/sql/mark-sent.ts";
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

/** An event of `aggregate`'s ordered stream (the test's own type: ordered here, not by the contracts). */
const orderedEvent = (aggregate: string, extra: Partial<OutboxEvent> = {}) =>
  buildEvent({ aggregateId: aggregate, ordered: true, ...extra });

const write = (events: OutboxEvent[]) =>
  pgTransaction(db.pool, async (tx) => {
    const ids: string[] = [];
    for (const e of events) ids.push(await enqueue(tx, e));
    return ids;
  });

const sequenceOf = async (messageId: string) =>
  (
    await db.pool.query<{ ordering_key: string | null; sequence: string | null }>(
      "SELECT ordering_key, sequence::text FROM outbox WHERE message_id = $1",
      [messageId],
    )
  ).rows[0];

/** Everything due now, claimed with a long lease (nothing comes back on its own during a test). */
const claimAll = async () => (await leasedClaim.due(db.pool, 1_000, 60_000)).map((r) => r.messageId);

/** Leaves the table empty of open rows: each test starts from its own rows. */
const closeAll = () => db.pool.query("UPDATE outbox SET status = 2, done_at = now() WHERE status IN (0, 9)");

describe("ordered streams in the outbox", () => {
  it("numbers each aggregate's rows from 1 in commit order, and a rolled-back write gives its number back", async () => {
    const a = `agg-${randomUUID()}`;
    const [first, second] = await write([orderedEvent(a), orderedEvent(a)]);
    await expect(
      pgTransaction(db.pool, async (tx) => {
        await enqueue(tx, orderedEvent(a));
        throw new Error("rolled back on purpose");
      }),
    ).rejects.toThrow(/on purpose/);
    const [third] = await write([orderedEvent(a)]);
    const [plain] = await write([buildEvent()]);
    expect(await sequenceOf(first as string)).toEqual({ ordering_key: `order:${a}`, sequence: "1" });
    expect((await sequenceOf(second as string))?.sequence).toBe("2");
    expect((await sequenceOf(third as string))?.sequence).toBe("3");
    expect(await sequenceOf(plain as string)).toEqual({ ordering_key: null, sequence: null });
    await closeAll();
  });

  it("claims only the oldest open row of each aggregate, while other aggregates and unordered rows go on", async () => {
    const [a, b] = [`agg-${randomUUID()}`, `agg-${randomUUID()}`];
    const [a1, a2, a3] = await write([orderedEvent(a), orderedEvent(a), orderedEvent(a)]);
    const [b1, b2] = await write([orderedEvent(b), orderedEvent(b)]);
    const [u1, u2] = await write([buildEvent(), buildEvent()]);

    const firstClaim = await leasedClaim.due(db.pool, 1_000, 60_000);
    expect(firstClaim.map((r) => r.messageId).sort()).toEqual([a1, b1, u1, u2].sort());
    // The rows behind a leased head stay where they are, for the fast path's claim as for the sweep's.
    expect(await claimAll()).toEqual([]);
    expect(await leasedClaim.byIds(db.pool, [a2 as string, b2 as string], 60_000)).toEqual([]);

    // Once the head is sent, the next row of its aggregate is the head.
    const head = firstClaim.find((r) => r.messageId === a1);
    expect(head).toMatchObject({ orderingKey: `order:${a}`, sequence: 1 });
    await markSent(db.pool, [head?.id as string]);
    const next = await leasedClaim.byIds(db.pool, [a2 as string, a3 as string], 60_000);
    expect(next.map((r) => [r.messageId, r.sequence])).toEqual([[a2, 2]]);
    await closeAll();
  });

  it("a failed head holds its aggregate back until it is redriven, and the aggregate resumes in order", async () => {
    const [a, b] = [`agg-${randomUUID()}`, `agg-${randomUUID()}`];
    const [a1, a2] = await write([orderedEvent(a), orderedEvent(a)]);
    const [b1] = await write([orderedEvent(b)]);
    await db.pool.query(
      "UPDATE outbox SET status = 9, last_error = 'refused on purpose' WHERE message_id = $1",
      [a1],
    );
    expect(await claimAll()).toEqual([b1]);

    await redrive(db.pool, { messageIds: [a1 as string] });
    expect(await claimAll()).toEqual([a1]);
    await db.pool.query("UPDATE outbox SET status = 1, sent_at = now() WHERE message_id = $1", [a1]);
    expect(await claimAll()).toEqual([a2]);
    await closeAll();
  });

  it("a head waiting out its backoff holds back the rows behind it", async () => {
    const a = `agg-${randomUUID()}`;
    const [a1, a2] = await write([orderedEvent(a), orderedEvent(a)]);
    await db.pool.query(
      "UPDATE outbox SET attempts = 1, next_attempt_at = now() + interval '1 hour' WHERE message_id = $1",
      [a1],
    );
    expect(await claimAll()).toEqual([]);
    await db.pool.query("UPDATE outbox SET next_attempt_at = now() WHERE message_id = $1", [a1]);
    expect(await claimAll()).toEqual([a1]);
    expect(a2).toBeDefined();
    await closeAll();
  });

  it("an ordered row is never leased at insert: the fast path claims it by id when its turn comes", async () => {
    const a = `agg-${randomUUID()}`;
    const rows = [outboxRow(buildEvent()), outboxRow(orderedEvent(a)), outboxRow(buildEvent())];
    const leased = await pgTransaction(db.pool, (tx) => insertLeasedRows(tx, rows, 60_000));
    expect(leased.map((r) => r.messageId)).toEqual([rows[0]?.messageId, rows[2]?.messageId]);
    expect(await claimAll()).toEqual([rows[1]?.messageId]);
    await closeAll();
  });

  it("two relays with their fast paths deliver each aggregate's rows in sequence, through relays that die before marking", async () => {
    const aggregates = Array.from({ length: 12 }, () => `agg-${randomUUID()}`);
    const perAggregate = 20;
    const counter = await countDeliveries(ROUTED_QUEUE);
    // Every other batch of the first relay, from its first, is published and confirmed, then the relay
    // "dies" before it records anything: the rows stay leased, come back after the short lease, and go
    // out again. The second relay may win most claims, so the first must die early to die at all.
    let batches = 0;
    let deaths = 0;
    const publishers = [orderPublisher(), orderPublisher()];
    const relays = [
      createRelay({
        pool: db.pool,
        publisher: publishers[0] as ConfirmPublisher,
        config: { pollIntervalMs: 20, leaseMs: 400 },
        faults: {
          afterPublish: async () => {
            batches += 1;
            if (batches % 2 === 1) {
              deaths += 1;
              throw new Error("relay died before marking (test fault)");
            }
          },
        },
      }),
      createRelay({
        pool: db.pool,
        publisher: publishers[1] as ConfirmPublisher,
        config: { pollIntervalMs: 20, leaseMs: 400 },
      }),
    ];
    for (const r of relays) r.start();
    try {
      // Writers interleave the aggregates, one event per transaction, and offer each commit to both fast paths.
      const written: string[] = [];
      for (let i = 0; i < perAggregate; i++) {
        await Promise.all(
          aggregates.map(async (a) => {
            const [id] = await write([orderedEvent(a)]);
            written.push(id as string);
            for (const r of relays) r.afterCommit([id as string]);
          }),
        );
      }
      await eventually(
        "every row delivered",
        async () => (written.every((id) => counter.published.has(id)) ? true : undefined),
        { timeoutMs: 60_000 },
      );
      expect(deaths).toBeGreaterThanOrEqual(1);

      // A consumer keeping the last sequence applied per aggregate applies each row once, in order.
      const applied = new Map<string, number[]>();
      for (const id of counter.arrivals) {
        const headers = counter.messages.get(id)?.properties.headers ?? {};
        const key = String(headers[HEADERS.orderingKey]);
        const seq = Number(headers[HEADERS.sequence]);
        const seen = applied.get(key) ?? [];
        if (seq > (seen.at(-1) ?? 0)) applied.set(key, [...seen, seq]);
      }
      const expected = Array.from({ length: perAggregate }, (_, i) => i + 1);
      expect(applied.size).toBe(aggregates.length);
      for (const a of aggregates) expect(applied.get(`order:${a}`), a).toEqual(expected);
    } finally {
      for (const r of relays) await r.stop();
      for (const p of publishers) await p.close();
      await counter.close();
      await closeAll();
    }
  }, 120_000);
});

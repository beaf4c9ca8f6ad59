// Batches: what the prefetch holds is applied several messages per transaction, acked with `multiple`,
// and a failure in a batch is split so that only the failing message is retried.

import type { RunTransaction, SqlTx } from "@orderflow/db";
import { waitFor } from "@orderflow/infra";
import { describe, expect, it } from "vitest";
import { type BatchHandlers, type Handlers, TransientError } from "../src/index.ts";
import { effectHandlers, startTestConsumer, WORK_QUEUE } from "./helpers/consumer.ts";
import { recordEffect } from "./helpers/db.ts";
import { buildOrderCreated } from "./helpers/factories.ts";
import { consumerSuite } from "./helpers/suite.ts";

const suite = consumerSuite("batching");
const { s, running } = suite;

/** The suite's transaction runner, counting how many transactions it opened. */
function counted(): { transaction: RunTransaction<SqlTx>; count: () => number } {
  let n = 0;
  return {
    transaction: (fn) => {
      n++;
      return suite.db.transaction(fn);
    },
    count: () => n,
  };
}

/** Publishes `n` orders while no consumer runs, so the first delivery hands over a full prefetch. */
async function backlog(n: number, build = (i: number) => buildOrderCreated({ customerId: `c-${i}` })) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await suite.broker.publishEvent("order.created", build(i)));
  return ids;
}

async function readyInQueue(): Promise<number> {
  return (await suite.broker.ch.checkQueue(WORK_QUEUE)).messageCount;
}

describe("consumer batches", () => {
  it("applies a backlog several messages per transaction, each once, and acks every one", async () => {
    const ids = await backlog(120);
    const tx = counted();
    const c = await startTestConsumer(s, suite.db, {
      consumerName: "batch-apply",
      transaction: tx.transaction,
      batchSize: 25,
      concurrency: 2,
    });
    running.push(c);
    await waitFor("all applied", () => c.outcomes.filter((o) => o.kind === "done").length >= ids.length, {
      timeoutMs: 30_000,
    });
    await c.stop();
    const effects = (await suite.db.effects()).filter((e) => e.consumer === "batch-apply");
    expect(new Set(effects.map((e) => e.message_id))).toEqual(new Set(ids));
    expect(effects).toHaveLength(ids.length);
    // Batches formed: far fewer transactions than messages (with one per message this would be 120).
    expect(tx.count()).toBeLessThan(ids.length / 3);
    // Nothing was left unacked: closing the channel would have returned it to the queue.
    expect(await readyInQueue()).toBe(0);
    console.log(`batching: ${ids.length} messages in ${tx.count()} transactions`);
  });

  it("with batchSize 1, every message has a transaction of its own", async () => {
    const ids = await backlog(30);
    const tx = counted();
    const c = await startTestConsumer(s, suite.db, {
      consumerName: "batch-one",
      transaction: tx.transaction,
      batchSize: 1,
    });
    running.push(c);
    await waitFor("all applied", () => c.outcomes.filter((o) => o.kind === "done").length >= ids.length, {
      timeoutMs: 30_000,
    });
    expect(tx.count()).toBe(ids.length);
  });

  it("a message failing inside a batch goes to its retry tier alone; the rest of the batch commits", async () => {
    const bad = "o-bad-one";
    const splits: number[] = [];
    const handlers: Handlers = {
      "order.created": async (ev, tx) => {
        await recordEffect(tx, "batch-split", ev.envelope.messageId, ev.payload.orderId);
        if (ev.payload.orderId === bad && ev.attempt === 0) throw new TransientError("this one fails once");
      },
    };
    const ids = await backlog(40, (i) => buildOrderCreated(i === 17 ? { orderId: bad } : {}));
    const c = await startTestConsumer(s, suite.db, {
      consumerName: "batch-split",
      handlers,
      batchSize: 25,
      concurrency: 1,
      batchStats: { onSplit: (size) => splits.push(size) },
    });
    running.push(c);
    await waitFor("all applied", () => c.outcomes.filter((o) => o.kind === "done").length >= ids.length, {
      timeoutMs: 30_000,
    });
    const retried = c.outcomes.filter((o) => o.kind === "retried");
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({ messageId: ids[17], attempt: 1, tier: "1s" });
    expect(splits.length).toBeGreaterThanOrEqual(1);
    // Every effect once: the failed batch's writes were rolled back, not kept beside the split's.
    const effects = (await suite.db.effects()).filter((e) => e.consumer === "batch-split");
    expect(effects.map((e) => e.message_id).sort()).toEqual([...ids].sort());
  });

  it("messages for one order keep their delivery order inside a batch (a cancel behind its create)", async () => {
    const applied: string[] = [];
    const handlers: Handlers = {
      "order.created": async (ev, tx) => {
        applied.push(`created:${ev.payload.orderId}`);
        await recordEffect(tx, "batch-order", ev.envelope.messageId, ev.payload.orderId);
      },
      "order.cancelled": async (ev, tx) => {
        applied.push(`cancelled:${ev.payload.orderId}`);
        await recordEffect(tx, "batch-order", ev.envelope.messageId, ev.payload.orderId);
      },
    };
    const orders = Array.from({ length: 20 }, (_, i) => `o-seq-${i}`);
    for (const orderId of orders) {
      await suite.broker.publishEvent("order.created", buildOrderCreated({ orderId }));
      await suite.broker.publishEvent("order.cancelled", {
        orderId,
        customerId: "c-1",
        reason: "customer",
        wasConfirmed: false,
      });
    }
    const c = await startTestConsumer(s, suite.db, {
      consumerName: "batch-order",
      handlers,
      batchSize: 25,
      concurrency: 1,
    });
    running.push(c);
    await waitFor("all applied", () => c.outcomes.filter((o) => o.kind === "done").length >= 40, {
      timeoutMs: 30_000,
    });
    for (const orderId of orders)
      expect(applied.indexOf(`created:${orderId}`)).toBeLessThan(applied.indexOf(`cancelled:${orderId}`));
  });

  it("set-based handlers apply a batch's events of one type in one call, each order's messages in delivery order", async () => {
    const applied: string[] = [];
    const calls: number[] = [];
    type Ev = { envelope: { messageId: string }; payload: { orderId: string } };
    const apply = async (type: "created" | "cancelled", ev: Ev, tx: SqlTx) => {
      applied.push(`${type}:${ev.payload.orderId}`);
      await recordEffect(tx, "batch-many", ev.envelope.messageId, ev.payload.orderId);
    };
    const one: Handlers = {
      "order.created": (ev, tx) => apply("created", ev, tx),
      "order.cancelled": (ev, tx) => apply("cancelled", ev, tx),
    };
    const many = (type: "created" | "cancelled") => async (events: Ev[], tx: SqlTx) => {
      calls.push(events.length);
      for (const ev of events) await apply(type, ev, tx);
      return events.map(() => undefined);
    };
    const batchHandlers: BatchHandlers = {
      "order.created": many("created"),
      "order.cancelled": many("cancelled"),
    };
    // As the outbox publishes them: each message names its aggregate, which is what keeps each order's
    // messages in delivery order when the batch is grouped by type. Half the orders get their cancel
    // first, so grouping by type alone (every create, then every cancel) would reverse those.
    const ids: string[] = [];
    const orders = Array.from({ length: 20 }, (_, i) => `o-many-${i}`);
    const delivered: string[] = [];
    for (const [n, orderId] of orders.entries()) {
      const aggregate = { "x-aggregate-id": orderId };
      const created = () =>
        suite.broker.publishEvent("order.created", buildOrderCreated({ orderId }), {}, aggregate);
      const cancelled = () =>
        suite.broker.publishEvent(
          "order.cancelled",
          { orderId, customerId: "c-1", reason: "customer", wasConfirmed: false },
          {},
          aggregate,
        );
      const pair =
        n % 2 === 0
          ? ([
              ["created", created],
              ["cancelled", cancelled],
            ] as const)
          : ([
              ["cancelled", cancelled],
              ["created", created],
            ] as const);
      for (const [type, publish] of pair) {
        ids.push(await publish());
        delivered.push(`${type}:${orderId}`);
      }
    }
    const c = await startTestConsumer(s, suite.db, {
      consumerName: "batch-many",
      handlers: one,
      batchHandlers,
      batchSize: 25,
      concurrency: 1,
    });
    running.push(c);
    await waitFor("all applied", () => c.outcomes.filter((o) => o.kind === "done").length >= ids.length, {
      timeoutMs: 30_000,
    });
    // Set-based calls took several events each: fewer handler calls than messages.
    expect(Math.max(...calls)).toBeGreaterThan(1);
    expect(calls.length).toBeLessThan(ids.length);
    for (const orderId of orders) {
      const mine = (list: string[]) => list.filter((x) => x.endsWith(`:${orderId}`));
      expect(mine(applied)).toEqual(mine(delivered));
    }
    const effects = (await suite.db.effects()).filter((e) => e.consumer === "batch-many");
    expect(effects.map((e) => e.message_id).sort()).toEqual([...ids].sort());
  });

  it("an unexpected failure after part of a batch was acked gives back only the deliveries not yet acked", async () => {
    const ids = await backlog(30);
    const faulty = ids[10] as string;
    const base = effectHandlers("batch-late-failure");
    const handlers: Handlers = {
      ...base,
      // A result the consumer cannot read: reporting this message throws, after the batch committed and
      // after the deliveries before it in the batch were acked (a bug in the consumer, not the handler).
      "order.created": async (ev, tx) => {
        await base["order.created"]?.(ev, tx);
        return (ev.envelope.messageId === faulty ? 1 : undefined) as unknown as undefined;
      },
    };
    const c = await startTestConsumer(s, suite.db, {
      consumerName: "batch-late-failure",
      handlers,
      batchSize: 25,
      concurrency: 1,
    });
    running.push(c);
    const settledIds = () => new Set(c.outcomes.filter((o) => o.kind !== "requeued").map((o) => o.messageId));
    await waitFor("every message settled", () => ids.every((id) => settledIds().has(id)), {
      timeoutMs: 30_000,
    });
    const firstRequeue = c.outcomes.findIndex((o) => o.kind === "requeued");
    expect(firstRequeue).toBeGreaterThan(0);
    const ackedBefore = new Set(
      c.outcomes
        .slice(0, firstRequeue)
        .filter((o) => o.kind === "done")
        .map((o) => o.messageId),
    );
    const requeued = c.outcomes.filter((o) => o.kind === "requeued").map((o) => o.messageId);
    expect(requeued).toContain(faulty);
    // What was acked before the failure was not given back: its ack stands.
    expect(requeued.filter((id) => ackedBefore.has(id))).toEqual([]);
    // Each message applied once: the given-back ones came back as duplicates the inbox recognised.
    const effects = (await suite.db.effects()).filter((e) => e.consumer === "batch-late-failure");
    expect(effects.map((e) => e.message_id).sort()).toEqual([...ids].sort());
    await waitFor("queue drained", async () => (await readyInQueue()) === 0, { timeoutMs: 10_000 });
  });
});

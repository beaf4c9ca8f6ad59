import type { RunTransaction } from "@orderflow/db";
import { amqpUrls, waitFor } from "@orderflow/infra";
import amqp from "amqplib";
import { describe, expect, it } from "vitest";
import type { Handlers } from "../src/index.ts";
import { startTestConsumer, WORK_QUEUE } from "./helpers/consumer.ts";
import { recordEffect } from "./helpers/db.ts";
import { buildOrderCreated } from "./helpers/factories.ts";
import { consumerSuite } from "./helpers/suite.ts";

const suite = consumerSuite("duplicates");
const { s, running } = suite;

describe("idempotent consumption", () => {
  it("the same order.created delivered 5 times (duplicate publishes and redeliveries) has one effect", async () => {
    const order = buildOrderCreated();
    const messageId = await suite.broker.publishEvent("order.created", order);
    for (let i = 0; i < 2; i++) await suite.broker.publishEvent("order.created", order, { messageId });
    // Two copies taken and not acked by a consumer that then goes away: the broker redelivers them.
    const model = await amqp.connect(amqpUrls(s, "inventory")[0] as string);
    const raw = await model.createChannel();
    const taken = await waitFor("a first copy", () => raw.get(WORK_QUEUE, { noAck: false }));
    const taken2 = await waitFor("a second copy", () => raw.get(WORK_QUEUE, { noAck: false }));
    expect([taken.properties.messageId, taken2.properties.messageId]).toEqual([messageId, messageId]);
    await raw.close();
    await model.close();

    const c = await startTestConsumer(s, suite.db, { consumerName: "dup-5" });
    running.push(c);
    await waitFor("three deliveries", () => c.outcomes.length >= 3);
    // Two more duplicate publishes after the effect committed (a relay that re-sent after a lost confirm).
    for (let i = 0; i < 2; i++) await suite.broker.publishEvent("order.created", order, { messageId });
    await waitFor("five deliveries", () => c.outcomes.length >= 5);

    const effects = (await suite.db.effects()).filter((e) => e.message_id === messageId);
    expect(effects).toHaveLength(1);
    expect(c.outcomes.map((o) => o.kind).sort()).toEqual([
      "done",
      "duplicate",
      "duplicate",
      "duplicate",
      "duplicate",
    ]);
    const inbox = await suite.db.pool.query(
      "SELECT count(*)::int AS n FROM inbox WHERE consumer = $1 AND message_id = $2",
      ["dup-5", messageId],
    );
    expect(inbox.rows[0].n).toBe(1);
  });

  it("two consumer instances racing on one duplicate apply it once", async () => {
    const name = "racing";
    const started = new Set<number>();
    // Each instance counts the transactions it opens, so the handler can hold its transaction open until
    // both instances are inside theirs: the second then waits on the inbox key and finds it taken.
    const racingTx =
      (instance: number): RunTransaction =>
      (fn) =>
        suite.db.transaction((tx) => {
          started.add(instance);
          return fn(tx);
        });
    const slowHandlers: Handlers = {
      "order.created": async (ev, tx) => {
        await recordEffect(tx, name, ev.envelope.messageId, ev.payload.orderId);
        await waitFor("both instances in a transaction", () => started.size === 2, {
          timeoutMs: 10_000,
          intervalMs: 20,
        });
      },
    };
    const opts = { consumerName: name, handlers: slowHandlers, prefetch: 1 };
    const a = await startTestConsumer(s, suite.db, { ...opts, transaction: racingTx(1) });
    running.push(a);
    const b = await startTestConsumer(s, suite.db, { ...opts, transaction: racingTx(2) });
    running.push(b);
    const order = buildOrderCreated();
    const messageId = await suite.broker.publishEvent("order.created", order);
    await suite.broker.publishEvent("order.created", order, { messageId });
    await waitFor("two outcomes", () => a.outcomes.length + b.outcomes.length >= 2, { timeoutMs: 20_000 });

    const effects = (await suite.db.effects()).filter((e) => e.message_id === messageId);
    expect(effects).toHaveLength(1);
    const kinds = [...a.outcomes, ...b.outcomes].map((o) => o.kind).sort();
    expect(kinds).toEqual(["done", "duplicate"]);
  });
});

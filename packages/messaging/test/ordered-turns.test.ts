// An ordered stream at the consumer (x-ordering-key, x-sequence): each key's messages are applied in their
// sequence, whatever order they arrive in; a copy is skipped; a gap that never closes is parked. Against
// the stack's broker cluster and PostgreSQL.
import { randomUUID } from "node:crypto";
import { HEADERS } from "@orderflow/contracts";
import { waitFor } from "@orderflow/infra";
import { describe, expect, it } from "vitest";
import { type Handlers, PARK_HEADERS, parkingQueue } from "../src/index.ts";
import { startTestConsumer, WORK_QUEUE } from "./helpers/consumer.ts";
import { recordEffect } from "./helpers/db.ts";
import { buildOrderCreated } from "./helpers/factories.ts";
import { consumerSuite } from "./helpers/suite.ts";

const suite = consumerSuite("ordered_turns");
const { s, running } = suite;

/** Handlers that record each applied (key, sequence) in the order the transactions ran. */
function recordingHandlers(consumer: string) {
  const applied: string[] = [];
  const handlers: Handlers = {
    "order.created": async (ev, tx) => {
      await recordEffect(tx, consumer, ev.envelope.messageId, ev.payload.orderId);
      applied.push(`${ev.headers[HEADERS.orderingKey]}#${ev.headers[HEADERS.sequence]}`);
    },
  };
  return { applied, handlers };
}

const publishInStream = (key: string, sequence: number, messageId = randomUUID()) =>
  suite.broker.publishEvent(
    "order.created",
    buildOrderCreated(),
    { messageId },
    { [HEADERS.orderingKey]: key, [HEADERS.sequence]: String(sequence) },
  );

describe("ordered streams at the consumer", () => {
  it("a message that arrives before the one it follows waits for it, and both apply in sequence", async () => {
    const { applied, handlers } = recordingHandlers("turns-wait");
    const c = await startTestConsumer(s, suite.db, { consumerName: "turns-wait", handlers });
    running.push(c);
    const key = `order:${randomUUID()}`;
    await publishInStream(key, 2);
    await waitFor("the early one sent round", () => c.outcomes.some((o) => o.kind === "retried"), {
      timeoutMs: 20_000,
    });
    await publishInStream(key, 1);
    await waitFor("both applied", () => applied.length === 2, { timeoutMs: 30_000 });
    expect(applied).toEqual([`${key}#1`, `${key}#2`]);
    // Waiting spends no attempt: the copy still carries attempt 0.
    expect(c.outcomes.find((o) => o.kind === "retried")).toMatchObject({ attempt: 0, infrastructure: true });
  });

  it("a copy of an applied sequence under another message id is skipped", async () => {
    const { applied, handlers } = recordingHandlers("turns-copy");
    const c = await startTestConsumer(s, suite.db, { consumerName: "turns-copy", handlers });
    running.push(c);
    const key = `order:${randomUUID()}`;
    await publishInStream(key, 1);
    await publishInStream(key, 1);
    await publishInStream(key, 2);
    await waitFor("three settled", () => c.outcomes.length >= 3, { timeoutMs: 20_000 });
    expect(applied).toEqual([`${key}#1`, `${key}#2`]);
    expect(c.outcomes.map((o) => o.kind).sort()).toEqual(["done", "done", "duplicate"]);
  });

  it("many messages of several keys, shuffled, apply in each key's sequence through batches the early ones do not split", async () => {
    const { applied, handlers } = recordingHandlers("turns-batch");
    const keys = Array.from({ length: 4 }, () => `order:${randomUUID()}`);
    const sends = keys.flatMap((k) => Array.from({ length: 8 }, (_, i) => [k, i + 1] as const));
    // A fixed shuffle: every key has messages that arrive before the ones they follow. All of them wait in
    // the queue before the consumer starts, so its first deliveries form batches.
    const shuffled = sends.map((x, i) => [x, (i * 7919) % sends.length] as const).sort((a, b) => a[1] - b[1]);
    for (const [[k, n]] of shuffled) await publishInStream(k, n);
    const splits: string[] = [];
    const c = await startTestConsumer(s, suite.db, {
      consumerName: "turns-batch",
      handlers,
      batchSize: 50,
      batchStats: { onSplit: (_size, error) => splits.push(error) },
    });
    running.push(c);
    await waitFor("every message applied", () => applied.length === sends.length, { timeoutMs: 60_000 });
    for (const k of keys) {
      const mine = applied.filter((a) => a.startsWith(`${k}#`));
      expect(mine).toEqual(Array.from({ length: 8 }, (_, i) => `${k}#${i + 1}`));
    }
    expect(splits).toEqual([]);
  }, 90_000);

  it("a gap that never closes parks the waiting message as sequence-gap once it has waited its bound", async () => {
    const { applied, handlers } = recordingHandlers("turns-gap");
    const c = await startTestConsumer(s, suite.db, {
      consumerName: "turns-gap",
      handlers,
      sequenceGapWaitMs: 2_500,
    });
    running.push(c);
    const key = `order:${randomUUID()}`;
    const id = await publishInStream(key, 3);
    await waitFor("parked", () => c.outcomes.some((o) => o.kind === "parked"), { timeoutMs: 30_000 });
    expect(applied).toEqual([]);
    const [parked] = await waitFor("in the parking lot", async () => {
      const m = await suite.broker.drain(parkingQueue(WORK_QUEUE));
      return m.length > 0 ? m : undefined;
    });
    expect(parked?.properties.messageId).toBe(id);
    expect(parked?.properties.headers?.[PARK_HEADERS.reason]).toBe("sequence-gap");
    expect(String(parked?.properties.headers?.[PARK_HEADERS.detail])).toContain(`sequence 3 of ${key}`);
  });

  it("a sequence that is not a number from 1 is parked as invalid-header", async () => {
    const { applied, handlers } = recordingHandlers("turns-bad");
    const c = await startTestConsumer(s, suite.db, { consumerName: "turns-bad", handlers });
    running.push(c);
    await suite.broker.publishEvent(
      "order.created",
      buildOrderCreated(),
      {},
      { [HEADERS.orderingKey]: `order:${randomUUID()}`, [HEADERS.sequence]: "0" },
    );
    await waitFor("parked", () => c.outcomes.some((o) => o.kind === "parked"), { timeoutMs: 20_000 });
    expect(c.outcomes[0]).toMatchObject({ kind: "parked", reason: "invalid-header" });
    expect(applied).toEqual([]);
    await suite.broker.drain(parkingQueue(WORK_QUEUE));
  });
});

// The intake alone (pure scheduling): which deliveries go into which transaction, and when.
import type { Channel, ConsumeMessage } from "amqplib";
import { describe, expect, it } from "vitest";
import { createIntake, laneOf } from "../src/intake.ts";

const ch = {} as Channel;
let tag = 0;
const msg = (aggregate?: string) =>
  ({
    fields: { deliveryTag: ++tag },
    properties: { headers: aggregate === undefined ? {} : { "x-aggregate-id": aggregate } },
  }) as unknown as ConsumeMessage;
const aggregateOf = (m: ConsumeMessage) => m.properties.headers?.["x-aggregate-id"] as string | undefined;
const turn = () => new Promise<void>((r) => setImmediate(r));

/** A transaction runner that records each batch and finishes it only when told to. */
function recorder() {
  const started: ConsumeMessage[][] = [];
  const finish: (() => void)[] = [];
  const run = (msgs: ConsumeMessage[]) =>
    new Promise<void>((resolve) => {
      started.push(msgs);
      finish.push(resolve);
    });
  return {
    started,
    /** Finishes the oldest unfinished batch, then lets the intake react. */
    async finishNext() {
      finish.shift()?.();
      await turn();
    },
    deliver: (_: Channel, m: ConsumeMessage) => run([m]),
    deliverBatch: (_: Channel, ms: ConsumeMessage[]) => run(ms),
  };
}

/** `count` keys that fall on `count` different lanes of `lanes`. */
function keysOnDistinctLanes(count: number, lanes: number): string[] {
  const byLane = new Map<number, string>();
  for (let i = 0; byLane.size < count && i < 1_000; i++) {
    const k = `order-${i}`;
    if (!byLane.has(laneOf(k, lanes))) byLane.set(laneOf(k, lanes), k);
  }
  return [...byLane.values()];
}

describe("intake", () => {
  it("with four lanes, applies one order's messages one after the other, in delivery order", async () => {
    const inFlight = new Map<string, number>();
    let mostAtOnce = 0;
    const applied: ConsumeMessage[] = [];
    // Each transaction takes a different number of event-loop turns, so lanes finish out of order.
    const run = async (ms: ConsumeMessage[]) => {
      const keys = ms.map((m) => aggregateOf(m) ?? "");
      for (const k of keys) inFlight.set(k, (inFlight.get(k) ?? 0) + 1);
      mostAtOnce = Math.max(mostAtOnce, ...inFlight.values());
      for (let i = 0; i < (ms[0]?.fields.deliveryTag ?? 0) % 4; i++) await turn();
      for (const k of keys) inFlight.set(k, (inFlight.get(k) ?? 1) - 1);
      applied.push(...ms);
    };
    const intake = createIntake({
      batchSize: 1,
      concurrency: 4,
      deliver: (_, m) => run([m]),
      deliverBatch: (_, ms) => run(ms),
    });
    const a = [msg("order-a"), msg("order-a"), msg("order-a")];
    const others = Array.from({ length: 9 }, (_, i) => msg(`order-${i}`));
    const pushed = [a[0], others[0], a[1], others[1], others[2], a[2], ...others.slice(3)];
    for (const m of pushed) intake.push(ch, m as ConsumeMessage);
    await intake.drained(5_000);
    expect(intake.count()).toBe(0);
    expect(mostAtOnce).toBe(1);
    expect(applied.filter((m) => aggregateOf(m) === "order-a")).toEqual(a);
    expect(applied.length).toBe(pushed.length);
  });

  it("applies messages about different orders at once, up to the number of lanes", async () => {
    const r = recorder();
    const intake = createIntake({ batchSize: 10, concurrency: 2, ...r });
    const [k1, k2] = keysOnDistinctLanes(2, 2) as [string, string];
    intake.push(ch, msg(k1));
    intake.push(ch, msg(k2));
    expect(r.started.length).toBe(2);
    // A third order on k1's lane waits for that lane, and then comes alone.
    const k3 = Array.from({ length: 100 }, (_, i) => `other-${i}`).find(
      (k) => laneOf(k, 2) === laneOf(k1, 2),
    );
    const third = msg(k3);
    intake.push(ch, third);
    expect(r.started.length).toBe(2);
    await r.finishNext();
    expect(r.started[2]).toEqual([third]);
  });

  it("with one lane, a free lane takes what waited as one batch, in delivery order", async () => {
    const r = recorder();
    const intake = createIntake({ batchSize: 3, concurrency: 1, ...r });
    const ms = [msg("x"), msg("y"), msg(), msg("z"), msg("x")];
    for (const m of ms) intake.push(ch, m);
    expect(r.started).toEqual([[ms[0]]]);
    await r.finishNext();
    expect(r.started[1]).toEqual(ms.slice(1, 4));
    await r.finishNext();
    expect(r.started[2]).toEqual([ms[4]]);
    await r.finishNext();
    await intake.drained(1_000);
    expect(intake.count()).toBe(0);
  });

  it("spreads messages without an aggregate over the lanes in turn", () => {
    const r = recorder();
    const intake = createIntake({ batchSize: 10, concurrency: 3, ...r });
    for (let i = 0; i < 3; i++) intake.push(ch, msg());
    expect(r.started.length).toBe(3);
  });

  it("spreads order ids over the lanes", () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4_000; i++) {
      const lane = laneOf(crypto.randomUUID(), 4);
      counts[lane] = (counts[lane] ?? 0) + 1;
    }
    for (const c of counts) expect(c).toBeGreaterThan(800);
  });
});

import { describe, expect, test } from "vitest";
import { orderCreated } from "../src/peer-contender.ts";
import { commitToDelivery, createTally, lossAndDuplicates } from "../src/peer-tally.ts";
import { cpuPerThousand, orderflowOverBestPeer, type PeerRow, peersSummary } from "../src/peers-summary.ts";
import { latency } from "../src/stats.ts";

const row = (overrides: Partial<PeerRow>): PeerRow => ({
  name: "x",
  version: "1.0.0",
  role: "peer",
  eventsPerSecond: 1_000,
  p50Ms: 5,
  p99Ms: 20,
  latency: { "200": { p50Ms: 4, p99Ms: 10, achievedPerSecond: 200 }, "1000": null },
  cpuMsPerThousand: { total: 100 },
  lost: 0,
  duplicated: 0,
  ...overrides,
});

describe("the peers' consumer tally", () => {
  test("a redelivered message id counts once as delivered and once as a duplicate", () => {
    const t = createTally();
    t.record("a", 1);
    t.record("b", 2);
    t.record("a", 3);
    expect(t.distinct).toBe(2);
    expect(t.deliveries).toBe(3);
    expect(t.firstAt("a")).toBe(1);
    expect(
      lossAndDuplicates({ committed: 2, pending: 0, distinct: t.distinct, deliveries: t.deliveries }),
    ).toEqual({
      lost: 0,
      duplicated: 1,
    });
  });

  test("an event still pending in the contender's store is late, not lost", () => {
    expect(lossAndDuplicates({ committed: 10, pending: 3, distinct: 7, deliveries: 7 })).toEqual({
      lost: 0,
      duplicated: 0,
    });
    expect(lossAndDuplicates({ committed: 10, pending: 1, distinct: 7, deliveries: 7 }).lost).toBe(2);
  });

  test("an event never delivered makes the p99 unmeasurable once it is over 1% of the run", () => {
    const t = createTally();
    const committed = new Map<string, number>();
    for (let i = 0; i < 100; i++) {
      committed.set(`m${i}`, 0);
      if (i !== 7) t.record(`m${i}`, 10);
    }
    const lat = commitToDelivery(committed, t);
    expect(lat.filter((v) => v === Number.POSITIVE_INFINITY)).toHaveLength(1);
    expect(latency(lat).p99).toBe(10);
    committed.set("m100", 0); // a second one lost: 2 of 101 is over 1%
    expect(latency(commitToDelivery(committed, t)).p99).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("bench.json's peers", () => {
  test("orderflow's throughput is divided by the best peer's, never by the seed baseline's", () => {
    const rows = [
      row({ name: "orderflow", role: "orderflow", eventsPerSecond: 3_000 }),
      row({ name: "pg-boss", eventsPerSecond: 1_500 }),
      row({ name: "pg-transactional-outbox", eventsPerSecond: 500 }),
      row({ name: "seed design", role: "baseline", eventsPerSecond: 100 }),
    ];
    expect(orderflowOverBestPeer(rows)).toBe(2);
    const s = peersSummary(rows);
    expect(s.orderflowOverBestPeer).toBe(2);
    for (const r of s.rows)
      expect(Object.keys(r)).toEqual(
        expect.arrayContaining([
          "name",
          "version",
          "eventsPerSecond",
          "p50Ms",
          "p99Ms",
          "cpuMsPerThousand",
          "lost",
          "duplicated",
        ]),
      );
  });

  test("with no peer measured the ratio is NaN, not the ratio over the baseline", () => {
    const rows = [
      row({ name: "orderflow", role: "orderflow" }),
      row({ name: "seed design", role: "baseline", eventsPerSecond: 100 }),
    ];
    expect(orderflowOverBestPeer(rows)).toBeNaN();
  });

  test("CPU seconds become ms per 1,000 events for each process group and in total", () => {
    expect(cpuPerThousand({ postgres: 1, rabbitmq: 2 }, 10_000)).toEqual({
      postgres: 100,
      rabbitmq: 200,
      total: 300,
    });
    expect(cpuPerThousand({ postgres: 1 }, 0).total).toBeNaN();
  });

  test("the order.created event every contender carries is about 300 bytes of JSON", () => {
    const bytes = Buffer.byteLength(JSON.stringify(orderCreated(crypto.randomUUID())));
    expect(bytes).toBeGreaterThan(250);
    expect(bytes).toBeLessThan(350);
  });
});

import { pgTransaction } from "@orderflow/db";
import { killBrokerNode, startBrokerNode } from "@orderflow/infra";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboxMetrics, createRelay, enqueue } from "../src/index.ts";
import {
  buildEvent,
  captureLog,
  countDeliveries,
  freshDatabase,
  orderPublisher,
  ROUTED_QUEUE,
  stack,
  statusCounts,
  type TestDb,
} from "./helpers.ts";

let db: TestDb;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe("quorum lost", () => {
  it("two of three nodes down (silence: no confirms, no nacks): rows stay pending with no attempt counted, then all go out", async () => {
    const [first, second, third] = stack.layout.rabbitmq.nodes.map((n) => n.name) as [string, string, string];
    // Publisher and counting consumer both on the surviving node: their connections stay open while
    // the queue, having lost its majority, answers nothing.
    const counter = await countDeliveries(ROUTED_QUEUE, { startNode: 0 });
    const publisher = orderPublisher({ confirmTimeoutMs: 3_000 });
    await publisher.waitUntilConnected(10_000);
    const registry = new Registry();
    const metrics = createOutboxMetrics({ registry, pool: db.pool });
    const refusals: string[] = [];
    const relay = createRelay({
      log: captureLog((_l, event, f) => {
        if (event === "relay.message_refused") refusals.push(String(f?.error));
      }),
      pool: db.pool,
      publisher,
      metrics,
      config: { pollIntervalMs: 200, gateMaxMs: 5_000 },
    });
    relay.start();
    let writing = true;
    let committed = 0;
    const writer = (async () => {
      while (writing) {
        const id = await pgTransaction(db.pool, (tx) => enqueue(tx, buildEvent()));
        committed++;
        relay.afterCommit([id]);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    let killed = false;
    try {
      await eventually("a flow before the fault", async () => ((await statusCounts(db.pool))[1] ?? 0) > 20);
      await killBrokerNode(second);
      await killBrokerNode(third);
      killed = true;
      const lostAt = Date.now();
      // Hold the fault until the relay has met the silence (confirm timeouts) several times.
      await eventually(
        "the relay to meet the silence",
        async () =>
          ((await registry.getSingleMetric("outbox_broker_unavailable_total")?.get())?.values[0]?.value ??
            0) >= 2,
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      await eventually("a backlog to build", async () => ((await statusCounts(db.pool))[0] ?? 0) > 250, {
        timeoutMs: 60_000,
      });
      const during = await db.pool.query<{ max_attempts: number; failed: number }>(
        "SELECT COALESCE(max(attempts), 0)::int AS max_attempts, count(*) FILTER (WHERE status = 9)::int AS failed FROM outbox WHERE status <> 1",
      );
      expect(refusals).toEqual([]);
      expect(during.rows[0]).toEqual({ max_attempts: 0, failed: 0 });

      // The stack's start waits for the whole cluster, so both nodes come back together.
      const restoreAt = Date.now();
      let quorumBackAt = 0;
      const restarting = Promise.all([startBrokerNode(second), startBrokerNode(third)]).then(() => {
        quorumBackAt = Date.now();
      });
      killed = false;
      writing = false;
      await writer;
      await eventually(
        "every committed row sent",
        async () => (await statusCounts(db.pool))[1] === committed,
        {
          timeoutMs: 90_000,
          intervalMs: 200,
        },
      );
      const drainedAt = Date.now();
      await eventually("every row delivered", () => counter.distinct() === committed, { timeoutMs: 60_000 });
      await restarting;
      console.log(
        `quorum lost: ${JSON.stringify({
          faultSeconds: ((restoreAt - lostAt) / 1000).toFixed(1),
          nodesRejoinedSecondsAfterRestart: ((quorumBackAt - restoreAt) / 1000).toFixed(1),
          drainedSecondsAfterRestartIssued: ((drainedAt - restoreAt) / 1000).toFixed(1),
          committed,
          unavailableBatches: (await registry.getSingleMetric("outbox_broker_unavailable_total")?.get())
            ?.values[0]?.value,
          duplicates: counter.duplicates().length,
        })}`,
      );
      expect((await statusCounts(db.pool))[9] ?? 0).toBe(0);
      expect(first).toBeDefined();
    } finally {
      writing = false;
      await writer;
      await relay.stop();
      await publisher.close();
      await counter.close();
      if (killed) await Promise.all([startBrokerNode(second), startBrokerNode(third)]).catch(() => {});
    }
  }, 300_000);
});

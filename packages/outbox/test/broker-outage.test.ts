import { pgTransaction } from "@orderflow/db";
import { startWholeBroker, stopWholeBroker } from "@orderflow/infra";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRelay, enqueue } from "../src/index.ts";
import {
  buildEvent,
  captureLog,
  countDeliveries,
  freshDatabase,
  orderPublisher,
  ROUTED_QUEUE,
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

describe("the whole broker down", () => {
  it("the whole broker stopped for 20 s under steady writes: writes keep committing, nothing fails, all published after", async () => {
    const counter = await countDeliveries(ROUTED_QUEUE);
    const events: { at: number; event: string }[] = [];
    const publisher = orderPublisher({
      confirmTimeoutMs: 5_000,
      log: captureLog((_l, event) => {
        if (event === "amqp.connected" || event === "amqp.lost") events.push({ at: Date.now(), event });
      }),
    });
    await publisher.waitUntilConnected(10_000);
    const relay = createRelay({
      pool: db.pool,
      publisher,
      config: { pollIntervalMs: 200 },
      log: captureLog((_l, event) => {
        if (event.startsWith("relay.broker_")) events.push({ at: Date.now(), event });
      }),
    });
    relay.start();

    // A steady writer: one order transaction every 20 ms (~50/s), each handed to the fast path.
    let writing = true;
    let committed = 0;
    const writeErrors: string[] = [];
    const ids: string[] = [];
    const writer = (async () => {
      while (writing) {
        const t = Date.now();
        try {
          const id = await pgTransaction(db.pool, (tx) => enqueue(tx, buildEvent()));
          ids.push(id);
          committed++;
          relay.afterCommit([id]);
        } catch (e) {
          writeErrors.push((e as Error).message);
        }
        await new Promise((r) => setTimeout(r, Math.max(0, 20 - (Date.now() - t))));
      }
    })();
    let maxFailed = 0;
    const watchFailed = setInterval(async () => {
      maxFailed = Math.max(
        maxFailed,
        (await statusCounts(db.pool).catch(() => ({}) as Record<number, number>))[9] ?? 0,
      );
    }, 500);

    try {
      await eventually(
        "some rows sent before the outage",
        async () => ((await statusCounts(db.pool))[1] ?? 0) > 50,
      );
      const stop = await stopWholeBroker();
      const stoppedAt = Date.now();
      const committedAtStop = committed;
      await new Promise((r) => setTimeout(r, 20_000)); // the outage itself, not a synchronisation
      const committedDuringOutage = committed - committedAtStop;
      const pendingAtRestart = (await statusCounts(db.pool))[0] ?? 0;
      const startIssuedAt = Date.now();
      const start = await startWholeBroker();
      const brokerBackAt = Date.now();
      // Keep writing a little after the return, then stop the flow and wait for the drain.
      await new Promise((r) => setTimeout(r, 2_000));
      writing = false;
      await writer;
      await eventually(
        "every committed row sent",
        async () => {
          const c = await statusCounts(db.pool);
          return (c[1] ?? 0) === committed && !c[0];
        },
        { timeoutMs: 90_000, intervalMs: 100 },
      );
      await eventually("every row delivered", () => counter.distinct() === committed, { timeoutMs: 60_000 });
      // The backlog built during the outage: when its last row was confirmed and marked.
      const backlog = await db.pool.query<{ last_sent: Date }>(
        "SELECT max(sent_at) AS last_sent FROM outbox WHERE created_at < $1",
        [new Date(startIssuedAt)],
      );
      const lastSent = backlog.rows[0]?.last_sent;
      if (!lastSent) throw new Error("no backlog row was sent");
      const backlogSentAt = lastSent.getTime();
      const reopened = events.find((e) => e.event === "amqp.connected" && e.at > stoppedAt)?.at ?? NaN;

      const report = {
        brokerDownSeconds: ((startIssuedAt - stoppedAt) / 1000).toFixed(1),
        startWholeBrokerSeconds: ((brokerBackAt - startIssuedAt) / 1000).toFixed(1),
        stopTook: `${stop.startedAt} -> ${stop.finishedAt}`,
        startTook: `${start.startedAt} -> ${start.finishedAt}`,
        committedDuringOutage,
        pendingAtRestart,
        totalCommitted: committed,
        relayReconnectedSecondsAfterStartIssued: ((reopened - startIssuedAt) / 1000).toFixed(1),
        backlogDrainedSecondsAfterReconnect: ((backlogSentAt - reopened) / 1000).toFixed(2),
        backlogDrainedSecondsAfterStartIssued: ((backlogSentAt - startIssuedAt) / 1000).toFixed(1),
        duplicates: counter.duplicates().length,
        // Relative to the moment stopWholeBroker returned.
        events: events.map((e) => `${e.event}@${((e.at - stoppedAt) / 1000).toFixed(1)}s`),
      };
      console.log(`broker outage: ${JSON.stringify(report)}`);
      expect(writeErrors).toEqual([]);
      expect(committedDuringOutage).toBeGreaterThan(500);
      expect(maxFailed).toBe(0);
      expect((await statusCounts(db.pool))[9] ?? 0).toBe(0);
      expect(new Set(counter.published.keys())).toEqual(new Set(ids));
    } finally {
      writing = false;
      clearInterval(watchFailed);
      await writer;
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  }, 240_000);
});

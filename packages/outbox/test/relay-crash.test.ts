import { eventually } from "@orderflow/testkit/eventually.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  countDeliveries,
  enqueueMany,
  freePort,
  freshDatabase,
  ROUTED_QUEUE,
  spawnRelay,
  statusCounts,
  type TestDb,
} from "./helpers.ts";

let db: TestDb;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => db?.drop());

describe("a relay process dying mid-flight", () => {
  it("a relay killed with SIGKILL between publish and mark: after restart every message arrived, maybe twice, none missing", async () => {
    const n = 300;
    const ids = await enqueueMany(db.pool, n, 100);
    const counter = await countDeliveries(ROUTED_QUEUE);
    // A short lease so the restarted relay can take over the dead one's claims within the test.
    const env = {
      OUTBOX_DATABASE_URL: db.url,
      OUTBOX_BATCH_SIZE: "100",
      OUTBOX_LEASE_MS: "3000",
      OUTBOX_POLL_MS: "100",
      // Two sweep batches in flight (the default): both are in the crash window.
      OUTBOX_SWEEP_CONCURRENCY: "2",
    };
    // The test entry pauses the relay after the broker confirmed a batch and before it is marked sent;
    // the second batch, claimed while the first awaited its confirms, pauses the same way.
    const first = spawnRelay(env, "packages/outbox/test/fixtures/relay-paused-after-publish.ts");
    let second: ReturnType<typeof spawnRelay> | undefined;
    try {
      await eventually(
        "the relay to pause after the broker confirmed both batches in flight",
        () => first.output().split("PAUSED after-publish rows=100 confirmed=100").length - 1 === 2,
      );
      first.child.kill("SIGKILL");
      await first.exited;
      // Both batches reached the broker, but nothing was recorded as sent.
      await eventually("the two batches at the broker", () => counter.distinct() === 200);
      expect((await statusCounts(db.pool))[1] ?? 0).toBe(0);

      const metricsPort = await freePort();
      second = spawnRelay({ ...env, OUTBOX_METRICS_PORT: String(metricsPort) });
      await eventually(
        "every row marked sent after the restart",
        async () => (await statusCounts(db.pool))[1] === n,
        {
          timeoutMs: 60_000,
        },
      );
      await eventually("every message delivered", () => counter.distinct() === n);
      const duplicates = counter.duplicates();
      console.log(
        `crash between publish and mark: ${n} delivered, ${duplicates.length} delivered twice (same id)`,
      );
      expect(new Set(counter.published.keys())).toEqual(new Set(ids));
      // Only the batches that were in the crash window can be duplicated, and at most once more.
      expect(duplicates.length).toBeLessThanOrEqual(200);
      expect(Math.max(...counter.published.values())).toBeLessThanOrEqual(2);
      // The relay process serves its metrics; the backlog gauges read the database.
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).toMatch(/^outbox_pending 0$/m);
      expect(Number(/^outbox_sent_total (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(200);
      expect(metrics).toContain("outbox_time_in_outbox_seconds_bucket");
      // SIGTERM is a graceful stop: the process drains and exits 0.
      second.child.kill("SIGTERM");
      expect(await second.exited).toBe(0);
      second = undefined;
    } finally {
      if (first.child.exitCode === null) first.child.kill("SIGKILL");
      if (second) {
        second.child.kill("SIGTERM");
        await second.exited;
      }
      await counter.close();
    }
  });
});

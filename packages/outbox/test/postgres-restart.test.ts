import { pgTransaction } from "@orderflow/db";
import { restartPostgresServer } from "@orderflow/infra";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { afterAll, beforeAll, describe, it } from "vitest";
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

describe("the database blipping", () => {
  it("PostgreSQL restarted under steady writes: the relay recovers by itself and every committed row is published", async () => {
    const counter = await countDeliveries(ROUTED_QUEUE);
    const publisher = orderPublisher();
    await publisher.waitUntilConnected(10_000);
    const errors: string[] = [];
    const relay = createRelay({
      pool: db.pool,
      publisher,
      config: { pollIntervalMs: 200 },
      log: captureLog((level, event) => {
        if (level === "error") errors.push(event);
      }),
    });
    relay.start();
    let writing = true;
    const committed: string[] = [];
    let failedWrites = 0;
    const writer = (async () => {
      while (writing) {
        try {
          const id = await pgTransaction(db.pool, (tx) => enqueue(tx, buildEvent()));
          committed.push(id);
          relay.afterCommit([id]);
        } catch {
          failedWrites++; // the business write failed too: nothing was promised
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      await eventually("a flow before the restart", async () => ((await statusCounts(db.pool))[1] ?? 0) > 50);
      await restartPostgresServer();
      await eventually("writes committing again", () => committed.length > 0 && failedWrites > 0, {
        timeoutMs: 30_000,
      });
      const after = committed.length;
      await eventually("more writes after the restart", () => committed.length > after + 50, {
        timeoutMs: 30_000,
      });
      writing = false;
      await writer;
      await eventually(
        "every committed row sent",
        async () => (await statusCounts(db.pool))[1] === committed.length,
        {
          timeoutMs: 60_000,
          intervalMs: 200,
        },
      );
      await eventually("every committed row delivered", () =>
        committed.every((id) => counter.published.has(id)),
      );
      console.log(
        `postgres restart: ${committed.length} committed, ${failedWrites} writes failed during the restart, ` +
          `relay errors logged: ${errors.length}, duplicates ${counter.duplicates().length}`,
      );
    } finally {
      writing = false;
      await writer;
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  }, 180_000);
});

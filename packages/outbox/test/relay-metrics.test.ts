// The relay's /metrics is what compose's health check and Prometheus read. Its backlog gauges query the
// database at each scrape, so a database that goes away must turn the scrape into a 503, not kill the relay.
import { eventually } from "@orderflow/testkit/eventually.ts";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, freshDatabase, spawnRelay, type TestDb } from "./helpers.ts";

let db: TestDb | undefined;
let relay: ReturnType<typeof spawnRelay> | undefined;

afterAll(async () => {
  if (relay && relay.child.exitCode === null) {
    relay.child.kill("SIGTERM");
    await relay.exited;
  }
  await db?.drop();
});

const scrape = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  return { status: res.status, body: await res.text() };
};

describe("the relay's metrics endpoint", () => {
  it("answers 200 with the backlog while its database is there, 503 once it is gone, and the relay keeps running", async () => {
    db = await freshDatabase("outbox_metrics");
    const port = await freePort();
    relay = spawnRelay({
      OUTBOX_DATABASE_URL: db.url,
      OUTBOX_METRICS_PORT: String(port),
      OUTBOX_POLL_MS: "200",
    });
    const up = await eventually("a 200 scrape with the pending gauge", async () => {
      const r = await scrape(port).catch(() => undefined);
      return r?.status === 200 && /^outbox_pending \d+$/m.test(r.body) ? r : undefined;
    });
    expect(up.body).toContain("outbox_pending");

    await db.drop();
    db = undefined;
    const down = await eventually("a 503 scrape once the database is gone", async () => {
      const r = await scrape(port).catch(() => undefined);
      return r?.status === 503 ? r : undefined;
    });
    expect(down.body).toContain("metrics unavailable");
    const again = await scrape(port);
    expect(again.status).toBe(503);
    expect(relay.child.exitCode).toBeNull();
    // The log line travels through the child's stdout, which may arrive after the 503 answer did.
    const child = relay;
    await eventually("the failed scrape logged", () => child.output().includes("metrics.scrape_failed"));
  });
});

// The fault lab's Alertmanager watcher against the stack's own Alertmanager: a synthetic alert, posted
// the way Prometheus posts them (firing with endsAt ahead, then resolved with endsAt = now), is
// recorded as firing and then as resolved. Needs the local stack (`pnpm stack up`).
import { performance } from "node:perf_hooks";
import { alertmanagerUrl, openStack } from "@orderflow/infra";
import { afterAll, describe, expect, it } from "vitest";
import { type AlertWatcher, startAlertWatcher } from "../src/run/alerts.ts";

const url = alertmanagerUrl(openStack(undefined, false));
// Unique per run, so alerts left by another run (or another test) never match.
const alertname = `LabWatcherProbe${process.pid}${Date.now().toString(36)}`;
const labels = { alertname, node: "rabbit-9", severity: "none" };

async function post(startsAt: Date, endsAt: Date): Promise<void> {
  const res = await fetch(`${url}/api/v2/alerts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify([
      {
        labels,
        annotations: { summary: "watcher test" },
        startsAt: startsAt.toISOString(),
        endsAt: endsAt.toISOString(),
      },
    ]),
    signal: AbortSignal.timeout(5_000),
  });
  expect(res.status).toBe(200);
}

const t0 = performance.now();
let watcher: AlertWatcher | undefined;
const startedAt = new Date();

afterAll(async () => {
  // Resolved whatever happened above, so the probe never lingers in Alertmanager.
  await post(startedAt, new Date()).catch(() => {});
  await watcher?.stop();
});

describe("the Alertmanager watcher", () => {
  it("records a posted alert as firing, then as resolved once it is posted with endsAt now", async () => {
    watcher = startAlertWatcher({
      url,
      sinceMs: () => performance.now() - t0,
      intervalMs: 200,
      maxMs: 60_000,
    });
    const mine = () => watcher?.alerts().filter((a) => a.name === alertname) ?? [];

    // Posted after the watcher's first answered poll, so the watch sees it appear (not as already active).
    const firstPollBy = Date.now() + 10_000;
    while (watcher.polls() === 0 && Date.now() < firstPollBy) await new Promise((r) => setTimeout(r, 50));
    expect(watcher.polls()).toBeGreaterThan(0);
    await post(startedAt, new Date(Date.now() + 5 * 60_000));
    expect(await watcher.waitUntil(() => mine().length === 1, Date.now() + 10_000)).toBe(true);
    const firing = mine()[0];
    expect(firing).toMatchObject({
      labels: { node: "rabbit-9", severity: "none" },
      resolvedMs: null,
      annotations: { summary: "watcher test" },
    });
    expect(firing?.activeAtStart).toBeUndefined();
    expect(firing?.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    // startsAt is the one posted, put on the run's clock (ms since t0); seen after it.
    const epochAtT0 = Date.now() - (performance.now() - t0);
    expect(firing?.startsAtMs).toBeCloseTo(startedAt.getTime() - epochAtT0, -2);
    expect(firing?.firstSeenMs).toBeGreaterThanOrEqual(firing?.startsAtMs ?? 0);

    const resolvedAt = performance.now() - t0;
    await post(startedAt, new Date());
    expect(await watcher.waitUntil(() => mine()[0]?.resolvedMs !== null, Date.now() + 10_000)).toBe(true);
    const resolved = mine()[0];
    expect(resolved?.resolvedMs).toBeGreaterThanOrEqual(resolvedAt - 50);
    expect(resolved?.resolvedMs).toBeLessThan(resolvedAt + 5_000);
    expect(mine()).toHaveLength(1);

    const { polls, failedPolls } = await watcher.stop();
    expect(polls).toBeGreaterThan(2);
    expect(failedPolls).toBe(0);
  });

  it("counts polls of an Alertmanager that does not answer as failed and opens no episode", async () => {
    const dead = startAlertWatcher({
      url: "http://127.0.0.1:9", // discard port: nothing listens
      sinceMs: () => performance.now() - t0,
      intervalMs: 100,
      maxMs: 5_000,
    });
    expect(await dead.waitUntil(() => false, Date.now() + 600)).toBe(false);
    const r = await dead.stop();
    expect(r.failedPolls).toBeGreaterThan(1);
    expect(r.polls).toBe(0);
    expect(r.alerts).toEqual([]);
  });
});

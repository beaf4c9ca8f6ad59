import type { Stack } from "@orderflow/infra";
import { alertEvents, alertMarkers, alertsFired } from "@orderflow/load/report/alert-marks.ts";
import type { RunEvent } from "@orderflow/load/result.ts";
import { describe, expect, it } from "vitest";
import { alertChecks, allFiredAndResolved, expectedAlerts } from "../src/run/alert-checks.ts";
import { type AmAlert, createAlertLog } from "../src/run/alerts.ts";
import { brokerOutage } from "../src/scenarios/broker-outage.ts";
import { leaderLoss } from "../src/scenarios/leader-loss.ts";

const ZERO = Date.parse("2026-12-01T10:00:00.000Z");
const iso = (ms: number) => new Date(ZERO + ms).toISOString();

/** An alert as GET /api/v2/alerts lists it; Prometheus sends firing alerts with endsAt minutes ahead. */
function am(name: string, node: string, startsAtMs: number, endsAtMs = startsAtMs + 240_000): AmAlert {
  return {
    labels: { alertname: name, node, severity: "critical" },
    annotations: { summary: `${node} down`, runbook: "docs/faults/broker-outage.md" },
    fingerprint: `${name}-${node}`,
    startsAt: iso(startsAtMs),
    endsAt: iso(endsAtMs),
  };
}

const events: RunEvent[] = [
  { atMs: 5_000, name: "fault injected: broker stopped" },
  { atMs: 14_000, name: "all broker nodes stopped" },
  { atMs: 34_000, name: "fault healed: broker started" },
];

describe("alert intervals from Alertmanager polls", () => {
  it("open an episode at the first poll that lists an alert and close it at the first that does not", () => {
    const log = createAlertLog(ZERO);
    log.observe([], 0);
    log.observe([am("BrokerNodeDown", "rabbit-1", 9_000)], 12_000);
    log.observe([am("BrokerNodeDown", "rabbit-1", 9_000)], 13_000);
    log.observe([], 40_000);
    expect(log.episodes()).toEqual([
      {
        name: "BrokerNodeDown",
        labels: { node: "rabbit-1", severity: "critical" },
        fingerprint: "BrokerNodeDown-rabbit-1",
        startsAt: iso(9_000),
        startsAtMs: 9_000,
        firstSeenMs: 12_000,
        resolvedMs: 40_000,
        annotations: { summary: "rabbit-1 down", runbook: "docs/faults/broker-outage.md" },
      },
    ]);
  });

  it("take a listed endsAt in the past as the moment it resolved, and a second firing as a new episode", () => {
    const log = createAlertLog(ZERO);
    const a = am("BrokerNodeDown", "rabbit-2", 1_000);
    log.observe([a], 2_000);
    log.observe([{ ...a, endsAt: iso(4_500) }], 5_000);
    log.observe([am("BrokerNodeDown", "rabbit-2", 8_000)], 9_000);
    const eps = log.episodes();
    expect(eps.map((e) => [e.firstSeenMs, e.resolvedMs, e.activeAtStart ?? false])).toEqual([
      [2_000, 4_500, true],
      [9_000, null, false],
    ]);
  });

  it("mark an alert already active at the first poll as started before the run", () => {
    const log = createAlertLog(ZERO);
    log.observe([am("ServiceDown", "x", -60_000)], 0);
    log.observe([], 1_000);
    expect(log.episodes()[0]).toMatchObject({ activeAtStart: true, startsAtMs: -60_000, resolvedMs: 1_000 });
    expect(alertsFired(log.episodes())).toBe("—");
    expect(alertEvents(log.episodes()).map((e) => e.name)).toEqual(["alert resolved: ServiceDown"]);
  });

  it("check each expected alert against the fault marks: fired after the injection, resolved after", () => {
    const log = createAlertLog(ZERO);
    log.observe([am("BrokerNodeDown", "rabbit-1", -30_000)], 0); // left over from an earlier fault
    log.observe([], 1_000);
    log.observe([am("BrokerNodeDown", "rabbit-1", 15_000), am("BrokerNodeDown", "rabbit-2", 15_000)], 16_000);
    log.observe([am("BrokerNodeDown", "rabbit-2", 15_000)], 44_000);
    const alerts = log.episodes();
    const expected = ["rabbit-1", "rabbit-2", "rabbit-3"].map((node) => ({
      name: "BrokerNodeDown",
      labels: { node },
    }));
    expect(allFiredAndResolved(expected.slice(0, 1), alerts, 5_000)).toBe(true);
    expect(allFiredAndResolved(expected.slice(0, 2), alerts, 5_000)).toBe(false);

    const checks = alertChecks(expected, alerts, events, 45_000, {
      polls: 4,
      failedPolls: 0,
      untilMs: 50_000,
    });
    expect(checks.map((c) => [c.name, c.ok])).toEqual([
      ["alert BrokerNodeDown{node=rabbit-1} reached Alertmanager during the fault", true],
      ["alert BrokerNodeDown{node=rabbit-1} resolved after the fault healed", true],
      ["alert BrokerNodeDown{node=rabbit-2} reached Alertmanager during the fault", true],
      ["alert BrokerNodeDown{node=rabbit-2} resolved after the fault healed", false],
      ["alert BrokerNodeDown{node=rabbit-3} reached Alertmanager during the fault", false],
      ["alert BrokerNodeDown{node=rabbit-3} resolved after the fault healed", false],
    ]);
    expect(checks[0]?.detail).toBe(
      'condition held from 10.0 s after "fault injected", in Alertmanager 11.0 s after "fault injected" (fault healed 29.0 s after it)',
    );
    expect(checks[1]?.detail).toBe('resolved 10.0 s after "fault healed"');
    expect(checks[3]?.detail).toBe('still active when the lab stopped watching, 16.0 s after "fault healed"');
    expect(checks[4]?.detail).toBe(
      "seen only BrokerNodeDown{node=rabbit-1} active since before the run (-30.0 s), so this fault's own could not be told apart, BrokerNodeDown{node=rabbit-1} at 16.0 s, BrokerNodeDown{node=rabbit-2} at 16.0 s",
    );
  });

  it("fail an alert whose condition began long after the fault healed: another cause raised it", () => {
    const log = createAlertLog(ZERO);
    log.observe([], 0);
    log.observe([am("BrokerNodeDown", "rabbit-1", 60_000)], 61_000);
    log.observe([], 70_000);
    const checks = alertChecks(
      [{ name: "BrokerNodeDown", labels: { node: "rabbit-1" } }],
      log.episodes(),
      events,
      45_000,
      { polls: 3, failedPolls: 0, untilMs: 70_000 },
    );
    expect(checks.map((c) => c.ok)).toEqual([false, true]);
  });

  it("say so when Alertmanager could not be read", () => {
    const checks = alertChecks([{ name: "BrokerNodeDown", labels: {} }], [], events, 45_000, {
      polls: 0,
      failedPolls: 30,
      untilMs: 60_000,
    });
    expect(checks[0]).toMatchObject({
      ok: false,
      detail: "never seen in 0 poll(s); 30 poll(s) of Alertmanager failed",
    });
  });

  it("draw alerts of one name that arrive in the same second as one chart mark", () => {
    const log = createAlertLog(ZERO);
    log.observe([], 0);
    log.observe(
      ["rabbit-1", "rabbit-2", "rabbit-3"].map((n) => am("BrokerNodeDown", n, 15_000)),
      16_000,
    );
    log.observe([am("BrokerNodeDown", "rabbit-3", 15_000)], 44_000);
    log.observe([], 46_000);
    expect(alertMarkers(log.episodes())).toEqual([
      {
        x: 16,
        label: "BrokerNodeDown (rabbit-1, rabbit-2, rabbit-3) fired",
        kind: "alert-fired",
      },
      { x: 44, label: "BrokerNodeDown (rabbit-1, rabbit-2) resolved", kind: "alert-resolved" },
      { x: 46, label: "BrokerNodeDown (rabbit-3) resolved", kind: "alert-resolved" },
    ]);
    expect(alertsFired(log.episodes())).toBe("BrokerNodeDown ×3");
  });

  it("expand the broker scenarios' declarations: one BrokerNodeDown per node stopped, or the node killed", () => {
    const stack = {
      layout: { rabbitmq: { nodes: [1, 2, 3].map((i) => ({ name: `rabbit-${i}@localhost` })) } },
    } as unknown as Stack;
    expect(expectedAlerts(brokerOutage.alerts, {}, stack)).toEqual(
      [1, 2, 3].map((i) => ({ name: "BrokerNodeDown", labels: { node: `rabbit-${i}` } })),
    );
    expect(expectedAlerts(leaderLoss.alerts, { killedNode: "rabbit-2@localhost" }, stack)).toEqual([
      { name: "BrokerNodeDown", labels: { node: "rabbit-2" } },
    ]);
    expect(expectedAlerts([{ name: "Anything" }], {}, stack)).toEqual([{ name: "Anything", labels: {} }]);
  });
});

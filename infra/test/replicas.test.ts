// `pnpm stack up --replicas N`: N of each service and relay, each on its own port and supervised on its
// own, so a crash hits one instance while the others carry on.
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { killApp } from "../src/apps/control.ts";
import { appDefinitions } from "../src/apps/definitions.ts";
import {
  appsStatus,
  localTargets,
  replicasInUse,
  restartAppsWith,
  type Stack,
  stackLayout,
  stackStatus,
} from "../src/index.ts";
import { waitFor } from "../src/proc.ts";
import { fakeStack } from "./fake-stack.ts";

describe("replicas, without a stack", () => {
  const layout = stackLayout({ stackDir: "/nonexistent", portOffset: 0 });
  const fake = fakeStack(layout);

  test("N of each app, the first under the app's own name, each on ports of its own", () => {
    const apps = appDefinitions(fake, {}, 2);
    expect(apps.map((a) => a.name)).toEqual([
      "order",
      "relay:order",
      "order#2",
      "relay:order#2",
      "inventory",
      "relay:inventory",
      "inventory#2",
      "relay:inventory#2",
      "points",
      "relay:points",
      "points#2",
      "relay:points#2",
    ]);
    const ports = apps.map(
      (a) => a.env.ORDER_PORT ?? a.env.INVENTORY_PORT ?? a.env.POINTS_PORT ?? a.env.OUTBOX_METRICS_PORT,
    );
    expect(new Set(ports).size).toBe(apps.length);
    const order2 = apps.find((a) => a.name === "order#2");
    expect(order2).toMatchObject({ app: "order", instance: 2, url: "http://127.0.0.1:3011" });
    // Reconciliation asks every instance of its peers, in turn.
    expect(order2?.env.INVENTORY_URL).toBe("http://127.0.0.1:3002,http://127.0.0.1:3012");
  });

  test("Prometheus scrapes every instance, numbered by its own label (none with one of each, as in compose)", () => {
    expect(localTargets(layout).service?.[0]).toEqual({
      targets: ["127.0.0.1:3001"],
      labels: { service: "order" },
    });
    const t = localTargets(layout, 2);
    expect(t.service?.filter((g) => g.labels?.service === "order")).toEqual([
      { targets: ["127.0.0.1:3001"], labels: { service: "order", replica: "1" } },
      { targets: ["127.0.0.1:3011"], labels: { service: "order", replica: "2" } },
    ]);
    expect(t.relay).toHaveLength(6);
  });
});

describe("replicas on the running stack", () => {
  let s: Stack;
  let apps = false;
  beforeAll(async () => {
    s = await requireHealthyStack();
    apps = (await appsStatus(s)).length > 0; // not with `stack up --no-apps`
  });
  afterAll(async () => {
    if (apps) await restartAppsWith(s, {}, 1);
  }, 300_000);

  test("two of each run and answer; one killed is restarted while the other keeps answering", async (ctx) => {
    if (!apps) ctx.skip();
    await expect(restartAppsWith(s, {}, 9)).rejects.toThrow(/from 1 to 4/);
    await restartAppsWith(s, {}, 2);
    expect(replicasInUse(s)).toBe(2);
    const status = await stackStatus(s);
    expect(status.services).toHaveLength(12);
    expect(status.services.every((a) => a.healthy && a.pid !== null)).toBe(true);
    const orders = status.services.filter((a) => a.app === "order");
    expect(orders.map((a) => [a.instance, a.url])).toEqual([
      [1, `http://127.0.0.1:${s.layout.servicePorts.order}`],
      [2, `http://127.0.0.1:${s.layout.servicePorts.order + 10}`],
    ]);

    const second = orders[1];
    const { pid } = await killApp(s, "order#2");
    expect(pid).toBe(second?.pid);
    // The first instance answers while the second is down and restarting.
    let answered = 0;
    const restarted = await waitFor(
      "order#2 restarted by the supervisor",
      async () => {
        const r = await fetch(`${orders[0]?.url}/health/ready`, { signal: AbortSignal.timeout(2_000) });
        if (r.ok) answered++;
        const now = (await appsStatus(s)).find((a) => a.name === "order#2");
        return now?.healthy && now.pid !== pid ? now : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(restarted.restarts).toBeGreaterThanOrEqual(1);
    expect(answered).toBeGreaterThan(0);

    // Back to one: the replicas' processes are gone.
    await restartAppsWith(s, {}, 1);
    expect((await appsStatus(s)).map((a) => a.name)).not.toContain("order#2");
  }, 600_000);
});

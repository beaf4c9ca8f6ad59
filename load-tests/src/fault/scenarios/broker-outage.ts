// The whole broker (all three nodes) down for 20 s. The order API writes only to its database (the
// outbox), so it must keep answering 2xx; the relays back off and publish the backlog afterwards.
import { startWholeBroker, stopWholeBroker } from "@orderflow/infra";
import { check, expectNoDamage } from "../expectations.ts";
import type { Scenario } from "../scenario.ts";

const OUTAGE_MS = 20_000;

export const brokerOutage: Scenario = {
  name: "broker-outage",
  kind: "normal",
  summary: "All three broker nodes stopped for 20 s under load, then started.",
  minDurationMs: 35_000,
  settleMs: 120_000,
  fault: async (ctx) => {
    await ctx.sleep(5_000);
    ctx.mark("fault injected: broker stopped");
    await stopWholeBroker(ctx.stack);
    ctx.log("all nodes stopped");
    await ctx.sleep(OUTAGE_MS);
    await startWholeBroker(ctx.stack);
    ctx.mark("fault healed: broker started");
  },
  expect: (o) =>
    expectNoDamage(o, [
      check(
        "order API 2xx during the outage >= 99%",
        (o.availabilityDuringFaults ?? 0) >= 0.99,
        `availability ${o.availabilityDuringFaults === null ? "n/a" : (o.availabilityDuringFaults * 100).toFixed(2)}%`,
      ),
    ]),
};

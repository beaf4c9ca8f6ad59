// The whole broker (all three nodes) down for 20 s. The order API writes only to its database (the
// outbox), so it must keep answering 2xx; the relays back off and publish the backlog afterwards.
// Numbers: scenarios/broker-outage.json.
import { loadDefinition, scenarioNumbers, stepsOf, timeScale } from "@orderflow/load/scenario-definitions.ts";
import { check, expectNoDamage } from "../run/expectations.ts";
import type { FaultContext, Scenario } from "../run/scenario.ts";

const def = loadDefinition("broker-outage");
const [outage] = stepsOf(def, "stop-broker");

/** BrokerNodeDown's `node` label: the node's short name (rabbit-2 for rabbit-2@localhost). */
export const nodeLabel = (node: string) => ({ node: node.split("@")[0] as string });

/** Stops all three nodes `afterMs` into the run for `outageMs`, then starts them (waiting for the queues). */
export async function brokerDown(ctx: FaultContext, afterMs: number, outageMs: number): Promise<void> {
  await ctx.sleep(afterMs);
  await ctx.measureInFlight("stop the whole broker");
  ctx.mark("fault injected: broker stopped");
  await ctx.faults.apply({ action: "stop-broker" });
  ctx.mark("all broker nodes stopped");
  // The outage is not cut short when the load ends: the audit must see the whole of it.
  await new Promise((r) => setTimeout(r, outageMs));
  await ctx.faults.apply({ action: "start-broker" });
  ctx.mark("fault healed: broker started");
}

export const brokerOutage: Scenario = {
  name: def.name,
  kind: "normal",
  ...scenarioNumbers(def),
  fault: (ctx) =>
    brokerDown(ctx, timeScale(def, ctx.durationMs)(outage?.atS ?? 0), (outage?.durationS ?? 0) * 1000),
  // Every node is down for 20 s: each must raise its own BrokerNodeDown, and each must resolve.
  alerts: [
    { name: "BrokerNodeDown", each: (_facts, s) => s.layout.rabbitmq.nodes.map((n) => nodeLabel(n.name)) },
  ],
  expect: (o) =>
    expectNoDamage(o, [
      check(
        "order API 2xx during the outage >= 99%",
        (o.availabilityDuringFaults ?? 0) >= 0.99,
        `availability ${o.availabilityDuringFaults === null ? "n/a" : (o.availabilityDuringFaults * 100).toFixed(2)}%`,
      ),
    ]),
};

// kill -9 of the broker node leading inventory's work queue, restarted later: the quorum queue elects
// a new leader from the two followers, publishers and consumers reconnect to the surviving nodes.
// Numbers: scenarios/leader-loss.json.
import {
  heldStep,
  loadDefinition,
  scenarioNumbers,
  timeScale,
} from "@orderflow/load/scenario-definitions.ts";
import { expectNoDamage } from "../run/expectations.ts";
import type { Scenario } from "../run/scenario.ts";
import { nodeLabel } from "./broker-outage.ts";

const def = loadDefinition("leader-loss");
// The node is down from 25% to 60% of the load plus its boot: at 20 s that is 7 s + the boot, over
// 10 s, so at least one scrape (every 5 s) finds it down and BrokerNodeDown fires whatever the
// phase between scrapes and kill. At CI's 12 s it would be 4.2 s + the boot: too close (minDurationS).
const kill = heldStep(def, "kill-node");

export const leaderLoss: Scenario = {
  name: def.name,
  kind: "normal",
  ...scenarioNumbers(def),
  fault: async (ctx) => {
    const at = timeScale(def, ctx.durationMs);
    await ctx.sleep(at(kill.atS));
    await ctx.measureInFlight(`kill -9 ${kill.target}`);
    const killed = await ctx.faults.apply({ action: "kill-node", target: kill.target });
    const node = String(killed.detail?.node);
    ctx.facts.killedNode = node;
    ctx.mark("fault injected: kill -9 leader", { node });
    await ctx.sleep(at(kill.untilS) - at(kill.atS));
    await ctx.faults.apply({ action: "start-node", target: node });
    ctx.mark("fault healed: node restarted", { node });
  },
  alerts: [
    {
      name: "BrokerNodeDown",
      each: (facts) => (typeof facts.killedNode === "string" ? [nodeLabel(facts.killedNode)] : []),
    },
  ],
  expect: (o) => expectNoDamage(o),
};

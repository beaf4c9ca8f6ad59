// kill -9 of the broker node leading inventory's work queue, restarted later: the quorum queue elects
// a new leader from the two followers, publishers and consumers reconnect to the surviving nodes.
import { killBrokerNode, startBrokerNode } from "@orderflow/infra";
import { expectNoDamage } from "../expectations.ts";
import type { Scenario } from "../scenario.ts";
import { nodeLabel } from "./broker-outage.ts";

export const leaderLoss: Scenario = {
  name: "leader-loss",
  kind: "normal",
  summary: "kill -9 of the quorum leader of inventory.order-events under load; restarted later.",
  // The node is down from 25% to 60% of the load plus its boot: at 20 s that is 7 s + the boot, over
  // 10 s, so at least one scrape (every 5 s) finds it down and BrokerNodeDown fires whatever the
  // phase between scrapes and kill. At CI's 12 s it would be 4.2 s + the boot: too close.
  minDurationMs: 20_000,
  fault: async (ctx) => {
    await ctx.sleep(ctx.durationMs * 0.25);
    const ev = await killBrokerNode("leader:inventory.order-events", ctx.stack);
    const node = String(ev.detail?.node);
    ctx.facts.killedNode = node;
    ctx.mark("fault injected: kill -9 leader", { node });
    await ctx.sleep(ctx.durationMs * 0.35);
    await startBrokerNode(node, ctx.stack);
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

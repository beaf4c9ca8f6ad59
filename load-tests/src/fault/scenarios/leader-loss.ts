// kill -9 of the broker node leading inventory's work queue, restarted later: the quorum queue elects
// a new leader from the two followers, publishers and consumers reconnect to the surviving nodes.
import { killBrokerNode, startBrokerNode } from "@orderflow/infra";
import { expectNoDamage } from "../expectations.ts";
import type { Scenario } from "../scenario.ts";

export const leaderLoss: Scenario = {
  name: "leader-loss",
  kind: "normal",
  summary: "kill -9 of the quorum leader of inventory.order-events under load; restarted later.",
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
  expect: (o) => expectNoDamage(o),
};

// The inventory service's broker connections run through a TCP proxy per node that, for 10 s, stops
// forwarding without closing anything (a partition as the client sees it). Heartbeats notice, the
// connection is dropped and re-established; unacked deliveries come back and the inbox dedups them.
import { amqpUrls, type Stack } from "@orderflow/infra";
import { type BlackholeProxy, startBlackholeProxy } from "../../blackhole-proxy.ts";
import { expectNoDamage } from "../expectations.ts";
import type { Scenario } from "../scenario.ts";

const proxiesOf = (facts: Record<string, unknown>) => (facts.proxies ?? []) as BlackholeProxy[];

async function proxiedUrls(s: Stack, facts: Record<string, unknown>): Promise<Record<string, string>> {
  const proxies: BlackholeProxy[] = [];
  for (const n of s.layout.rabbitmq.nodes)
    proxies.push(await startBlackholeProxy({ targetHost: "127.0.0.1", targetPort: n.amqpPort }));
  facts.proxies = proxies;
  // Same credentials and vhost, each node's port replaced by its proxy's.
  const urls = amqpUrls(s, "inventory").map((u, i) => {
    const url = new URL(u);
    url.port = String(proxies[i]?.port);
    return url.toString();
  });
  return { INVENTORY_AMQP_URLS: urls.join(",") };
}

export const networkBlackhole: Scenario = {
  name: "network-blackhole",
  kind: "normal",
  summary: "inventory's broker connections blackholed (bytes dropped, sockets kept open) for 10 s.",
  settleMs: 120_000,
  apps: async (s, facts) => ({ env: await proxiedUrls(s, facts) }),
  fault: async (ctx) => {
    await ctx.sleep(ctx.durationMs * 0.25);
    for (const p of proxiesOf(ctx.facts)) p.blackhole("drop");
    ctx.mark("fault injected: inventory's broker link blackholed");
    await ctx.sleep(10_000);
    const dropped = proxiesOf(ctx.facts).reduce((a, p) => a + p.droppedBytes, 0);
    for (const p of proxiesOf(ctx.facts)) p.heal();
    ctx.mark("fault healed: link forwards again", { droppedBytes: dropped });
  },
  cleanup: async (facts) => {
    const proxies = proxiesOf(facts);
    facts.proxies = proxies.map((p) => ({ port: p.port, droppedBytes: p.droppedBytes }));
    // Leaves the apps pointing at closed ports: the lab restarts them with the next scenario's env.
    await Promise.all(proxies.map((p) => p.close()));
  },
  minDurationMs: 25_000,
  expect: (o) => expectNoDamage(o),
};

// The inventory service's broker connections run through a TCP proxy per node that, for 10 s, stops
// forwarding without closing anything (a partition as the client sees it). Heartbeats notice, the
// connection is dropped and re-established; unacked deliveries come back and the inbox dedups them.
import { amqpUrls, type ServiceName, type Stack } from "@orderflow/infra";
import { type BlackholeMode, type BlackholeProxy, startBlackholeProxy } from "../blackhole-proxy.ts";
import { expectNoDamage } from "../run/expectations.ts";
import type { FaultContext, Scenario } from "../run/scenario.ts";

const proxiesOf = (facts: Record<string, unknown>) => (facts.proxies ?? []) as BlackholeProxy[];

/** One proxy per node in front of `svc`'s broker connections; returns the environment that routes them. */
export async function proxiedBrokerUrls(
  s: Stack,
  svc: ServiceName,
  facts: Record<string, unknown>,
): Promise<Record<string, string>> {
  const proxies: BlackholeProxy[] = [];
  for (const n of s.layout.rabbitmq.nodes)
    proxies.push(await startBlackholeProxy({ targetHost: n.host, targetPort: n.amqpPort }));
  facts.proxies = proxies;
  // Same credentials and vhost, each node's address replaced by its proxy's: the proxies listen on the
  // host's loopback, also when the nodes have addresses of their own (`stack up --netns`).
  const urls = amqpUrls(s, svc).map((u, i) => {
    const url = new URL(u);
    url.hostname = proxies[i]?.host ?? url.hostname;
    url.port = String(proxies[i]?.port);
    return url.toString();
  });
  return { [`${svc.toUpperCase()}_AMQP_URLS`]: urls.join(",") };
}

/** Every proxy blackholes (drops, or holds) what it gets for `ms`, then forwards again; returns the bytes dropped. */
export async function blackholeFor(
  ctx: FaultContext,
  ms: number,
  what: string,
  mode: BlackholeMode = "drop",
): Promise<number> {
  await ctx.measureInFlight(`blackhole ${what}`);
  for (const p of proxiesOf(ctx.facts)) p.blackhole(mode);
  ctx.mark(`fault injected: ${what} blackholed`);
  await ctx.sleep(ms);
  const dropped = proxiesOf(ctx.facts).reduce((a, p) => a + p.droppedBytes, 0);
  for (const p of proxiesOf(ctx.facts)) p.heal();
  ctx.mark("fault healed: link forwards again", { droppedBytes: dropped });
  return dropped;
}

/** Closes the proxies (after the audit) and keeps what they did in the facts. */
export async function closeProxies(facts: Record<string, unknown>): Promise<void> {
  const proxies = proxiesOf(facts);
  facts.proxies = proxies.map((p) => ({ port: p.port, droppedBytes: p.droppedBytes }));
  // Leaves the apps pointing at closed ports: the lab restarts them with the next scenario's env.
  await Promise.all(proxies.map((p) => p.close()));
}

/**
 * On the compose stack: inventory's container detached from the project's network for `ms` (through the
 * control service), then attached again. Its sockets stay open but nothing reaches the broker (nor the
 * database: a harsher cut than the proxy's, which spares PostgreSQL).
 */
export async function disconnectFor(ctx: FaultContext, ms: number, app: string): Promise<void> {
  await ctx.measureInFlight(`disconnect ${app}`);
  await ctx.faults.apply({ action: "disconnect", target: app });
  ctx.mark(`fault injected: ${app}'s container disconnected`);
  try {
    await ctx.sleep(ms);
  } finally {
    await ctx.faults.apply({ action: "connect", target: app });
  }
  ctx.mark("fault healed: container connected again");
}

export const networkBlackhole: Scenario = {
  name: "network-blackhole",
  kind: "normal",
  summary: "inventory's broker connections blackholed (bytes dropped, sockets kept open) for 10 s.",
  settleMs: 120_000,
  apps: async (s, facts) => ({ env: await proxiedBrokerUrls(s, "inventory", facts) }),
  fault: async (ctx) => {
    await ctx.sleep(ctx.durationMs * 0.25);
    await blackholeFor(ctx, 10_000, "inventory's broker link");
  },
  cleanup: closeProxies,
  compose: {
    summary: "inventory's container detached from the compose network (sockets kept open) for 10 s.",
    apps: () => ({}),
    fault: async (ctx) => {
      await ctx.sleep(ctx.durationMs * 0.25);
      await disconnectFor(ctx, 10_000, "inventory");
    },
    cleanup: async () => {},
  },
  minDurationMs: 25_000,
  expect: (o) => expectNoDamage(o),
};

// Partitions between broker nodes that run in namespaces of their own (netns.ts), after the nemeses of
// RabbitMQ's Jepsen suite. A cut is a blackhole route in one node's namespace for a peer's address: its
// packets to that peer vanish, as on a dead link, while clients on the host still reach it. Healing
// deletes exactly those routes, so the namespaces are left as they were made.
import type { Layout } from "./layout.ts";
import { type NamespacedNode, namespacedNodes } from "./netns.ts";
import { run, runOrThrow } from "./proc.ts";

export const PARTITION_KINDS = ["halves", "majorities-ring", "isolate-node", "bridge"] as const;
export type PartitionKind = (typeof PARTITION_KINDS)[number];

/** Node `from` drops every packet it sends to node `to` (node indexes, 1-based). */
export interface Cut {
  from: number;
  to: number;
}

const both = (a: number, b: number): Cut[] => [
  { from: a, to: b },
  { from: b, to: a },
];

/**
 * The cuts of a partition of `nodes` (indexes in ring order). `focus` is the node the kind singles out:
 * the one cut off (halves: the caller passes the node leading the most queues; isolate-node), or the one
 * left seeing both sides (bridge). majorities-ring ignores it.
 *
 * On three nodes a majority is two, and no set of two-way cuts gives every node a different one, so the
 * ring is one-way: each node drops what it sends to its successor, and so hears from one peer only.
 * TCP needs both directions, so every link of the ring soon fails as a whole, from each side at its own
 * moment: the nodes disagree for a while about who is up, which is what this nemesis is for.
 */
export function partitionCuts(kind: PartitionKind, nodes: number[], focus: number): Cut[] {
  if (kind !== "majorities-ring" && !nodes.includes(focus))
    throw new Error(`node ${focus} is not one of ${nodes.join(", ")}`);
  const others = nodes.filter((n) => n !== focus);
  switch (kind) {
    case "halves":
    case "isolate-node":
      return others.flatMap((o) => both(focus, o));
    case "bridge": {
      const [a, b] = others;
      if (a === undefined || b === undefined) throw new Error("a bridge needs three nodes");
      return both(a, b);
    }
    case "majorities-ring":
      return nodes.map((n, i) => ({ from: n, to: nodes[(i + 1) % nodes.length] as number }));
  }
}

/**
 * The node a partition singles out when the caller names none: halves cuts off the node leading the
 * most queues (the cut that moves most leaders), the other kinds a random node. `busiestLeader` reads
 * the leaders the way the caller's stack can (the management API, or the compose containers).
 */
export async function partitionFocus(
  kind: PartitionKind,
  nodes: number[],
  busiestLeader: () => Promise<number>,
): Promise<number> {
  if (kind === "halves") return busiestLeader();
  return nodes[Math.floor(Math.random() * nodes.length)] ?? 1;
}

/** One cut as a fault's detail and the docs write it. */
export const cutText = (c: Cut): string => `rabbit-${c.from} -/-> rabbit-${c.to}`;

/** What a partition fault reports, on the local stack and on compose alike. */
export function partitionDetail(kind: PartitionKind, nodes: number[], focus: number, cuts: Cut[]) {
  return {
    kind,
    ...(kind === "majorities-ring" ? {} : { focus: `rabbit-${focus}` }),
    cuts: cuts.map(cutText),
    reaches: describeCuts(cuts, nodes),
  };
}

/** Which nodes each node still reaches, by its short name: for a fault's detail and the docs. */
export function describeCuts(cuts: Cut[], nodes: number[]): Record<string, string[]> {
  return Object.fromEntries(
    nodes.map((n) => [
      `rabbit-${n}`,
      nodes.filter((m) => m !== n && !cuts.some((c) => c.from === n && c.to === m)).map((m) => `rabbit-${m}`),
    ]),
  );
}

function byIndex(layout: Layout): Map<number, NamespacedNode> {
  const nodes = namespacedNodes(layout);
  if (nodes.length === 0)
    throw new Error("the broker nodes share the host's network: partitions need `pnpm stack up --netns`");
  return new Map(nodes.map((n) => [n.index, n]));
}

/** The cuts in place now, read from the namespaces' routing tables. */
export async function currentCuts(layout: Layout): Promise<Cut[]> {
  const nodes = byIndex(layout);
  const cuts: Cut[] = [];
  for (const n of nodes.values()) {
    const r = await run("ip", ["-n", n.netns.name, "route", "show", "type", "blackhole"], {
      timeoutMs: 10_000,
    });
    if (r.code !== 0) continue; // no namespace: nothing is cut there
    for (const line of r.stdout.split("\n")) {
      const dst = line.trim().split(/\s+/)[1];
      const peer = [...nodes.values()].find((p) => p.host === dst);
      if (peer) cuts.push({ from: n.index, to: peer.index });
    }
  }
  return cuts;
}

export async function applyCuts(layout: Layout, cuts: Cut[]): Promise<void> {
  const nodes = byIndex(layout);
  for (const c of cuts) {
    const from = nodes.get(c.from);
    const to = nodes.get(c.to);
    if (!from || !to) throw new Error(`no node ${from ? c.to : c.from} in this stack`);
    await runOrThrow(
      `cut rabbit-${c.from} -> rabbit-${c.to}`,
      "ip",
      ["-n", from.netns.name, "route", "replace", "blackhole", `${to.host}/32`],
      { timeoutMs: 10_000 },
    );
  }
}

/** Deletes every cut (and only the cuts); returns those it found. */
export async function healCuts(layout: Layout): Promise<Cut[]> {
  const nodes = byIndex(layout);
  const cuts = await currentCuts(layout);
  for (const c of cuts) {
    const from = nodes.get(c.from) as NamespacedNode;
    const to = nodes.get(c.to) as NamespacedNode;
    await runOrThrow(
      `heal rabbit-${c.from} -> rabbit-${c.to}`,
      "ip",
      ["-n", from.netns.name, "route", "delete", "blackhole", `${to.host}/32`],
      { timeoutMs: 10_000 },
    );
  }
  return cuts;
}

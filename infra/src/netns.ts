// `pnpm stack up --netns`: each broker node in a network namespace of its own, joined to the host by a
// veth pair on one bridge, so that the links between nodes can be cut (partitions.ts) while clients on
// the host still reach every node. Everything here is named from the layout, so `down` finds and removes
// it whether or not the command that made it finished (a SIGKILLed `up` included).
import fs from "node:fs";
import type { BrokerNodeLayout, Layout } from "./layout.ts";
import { isAlive, readPid, run, runOrThrow, signal, waitForExit } from "./proc.ts";

const ip = (what: string, args: string[]) => runOrThrow(what, "ip", args, { timeoutMs: 15_000 });

export interface NamespacedNode extends BrokerNodeLayout {
  netns: NonNullable<BrokerNodeLayout["netns"]>;
}

export function namespacedNodes(layout: Layout): NamespacedNode[] {
  return layout.rabbitmq.nodes.filter((n): n is NamespacedNode => n.netns !== undefined);
}

function network(layout: Layout) {
  const net = layout.rabbitmq.network;
  if (!net) throw new Error("this stack's broker nodes share the host's network (start it with --netns)");
  return net;
}

/** Why the host cannot make namespaces, or undefined when it can (root and iproute2). */
export async function netnsUnsupported(isRoot: boolean): Promise<string | undefined> {
  if (!isRoot) return "--netns needs root: network namespaces and links are made with `ip` as root";
  const r = await run("ip", ["netns", "list"], { timeoutMs: 5_000 });
  if (r.code !== 0) return `--netns needs iproute2's \`ip netns\`: ${(r.stderr || r.stdout).trim()}`;
  return undefined;
}

const namespaces = async () =>
  new Set(
    (await ip("ip netns list", ["netns", "list"]))
      .split("\n")
      .map((l) => l.split(" ")[0] ?? "")
      .filter(Boolean),
  );

const linkExists = async (name: string) => (await run("ip", ["link", "show", name])).code === 0;

/** Erlang's host table: the nodes resolve one another's host names without the system's resolver. */
function erlangHosts(layout: Layout): string {
  return `${[
    ...layout.rabbitmq.nodes.map(
      (n) => `{host, {${n.host.split(".").join(",")}}, ["${n.name.split("@")[1]}"]}.`,
    ),
    "{lookup, [file, native]}.",
  ].join("\n")}\n`;
}

/** Makes the bridge, namespaces and links that are missing; a no-op when all are there. */
export async function createBrokerNetwork(layout: Layout): Promise<void> {
  const net = network(layout);
  fs.mkdirSync(layout.rabbitmq.dir, { recursive: true });
  fs.writeFileSync(net.inetrcFile, erlangHosts(layout));
  if (!(await linkExists(net.bridge))) {
    await ip("make the bridge", ["link", "add", "name", net.bridge, "type", "bridge"]);
    await ip("address the bridge", ["addr", "add", `${net.gateway}/${net.prefixLength}`, "dev", net.bridge]);
  }
  await ip("bring the bridge up", ["link", "set", net.bridge, "up"]);
  const have = await namespaces();
  for (const n of namespacedNodes(layout)) {
    const ns = n.netns.name;
    if (!have.has(ns)) await ip(`make namespace ${ns}`, ["netns", "add", ns]);
    if (!(await linkExists(n.netns.hostLink))) {
      await ip(`link ${ns}`, [
        "link",
        "add",
        n.netns.hostLink,
        "type",
        "veth",
        "peer",
        "name",
        "eth0",
        "netns",
        ns,
      ]);
      await ip(`address ${ns}`, ["-n", ns, "addr", "add", `${n.host}/${net.prefixLength}`, "dev", "eth0"]);
    }
    await ip(`attach ${ns}`, ["link", "set", n.netns.hostLink, "master", net.bridge, "up"]);
    await ip(`bring ${ns} up`, ["-n", ns, "link", "set", "eth0", "up"]);
    await ip(`bring ${ns}'s loopback up`, ["-n", ns, "link", "set", "lo", "up"]);
  }
}

/** What of this stack's namespaces, links and bridge exists now (names; empty when nothing is left). */
export async function brokerNetworkLeft(layout: Layout): Promise<string[]> {
  const net = layout.rabbitmq.network;
  if (!net) return [];
  const have = await namespaces();
  const left: string[] = [];
  for (const n of namespacedNodes(layout)) {
    if (have.has(n.netns.name)) left.push(`netns ${n.netns.name}`);
    if (await linkExists(n.netns.hostLink)) left.push(`link ${n.netns.hostLink}`);
  }
  if (await linkExists(net.bridge)) left.push(`bridge ${net.bridge}`);
  return left;
}

/**
 * Removes every namespace, link and bridge of this stack's layout that exists. A process still inside a
 * namespace would keep it alive unnamed: they are all this stack's (its nodes and their epmd, left by a
 * crash), so they are killed first. Deleting a namespace deletes its end of the veth pair, and so the pair.
 */
export async function removeBrokerNetwork(layout: Layout): Promise<void> {
  const net = layout.rabbitmq.network;
  // Without iproute2 no namespace can have been made here: nothing to remove.
  if (!net || (await run("ip", ["netns", "list"], { timeoutMs: 5_000 })).code !== 0) return;
  const have = await namespaces();
  for (const n of namespacedNodes(layout)) {
    if (!have.has(n.netns.name)) continue;
    const pids = (await run("ip", ["netns", "pids", n.netns.name])).stdout
      .split("\n")
      .map(Number)
      .filter((p) => Number.isInteger(p) && p > 0);
    for (const pid of pids) signal(pid, "SIGKILL");
    for (const pid of pids) await waitForExit(pid, 5_000);
    await ip(`delete namespace ${n.netns.name}`, ["netns", "delete", n.netns.name]);
  }
  for (const n of namespacedNodes(layout)) await deleteLinkIfThere(n.netns.hostLink);
  if (await linkExists(net.bridge)) await ip("delete the bridge", ["link", "delete", net.bridge]);
  fs.rmSync(net.inetrcFile, { force: true });
}

/**
 * The kernel takes a deleted namespace's veth pair down in the background, so a host end seen a moment
 * ago may be gone by the time it is deleted: that is the outcome wanted, not an error.
 */
async function deleteLinkIfThere(link: string): Promise<void> {
  if (!(await linkExists(link))) return;
  const r = await run("ip", ["link", "delete", link], { timeoutMs: 15_000 });
  if (r.code !== 0 && (await linkExists(link)))
    throw new Error(`delete link ${link} failed (exit ${r.code}): ${r.stderr.trim()}`);
}

/** The command line that runs `cmd` inside node n's namespace (as is, without one). */
export const inNamespace = (n: BrokerNodeLayout, cmd: string, args: string[]): [string, string[]] =>
  n.netns ? ["ip", ["netns", "exec", n.netns.name, cmd, ...args]] : [cmd, args];

export const namespaceEpmdPid = (n: NamespacedNode) => {
  const pid = readPid(n.netns.epmdPidFile);
  return isAlive(pid) ? pid : undefined;
};

// Partitions between the compose broker nodes, made as the local stack makes them (infra's partitions.ts):
// a blackhole route in one node's network namespace for a peer's address, so its packets to that peer
// vanish as on a dead link while clients still reach it. The node containers get no capability and no
// tool for it: each node's routes are written by a throwaway container of the network-tools service's
// image (busybox), run in that node's network namespace with NET_ADMIN.
import type { Cut } from "@orderflow/infra";
import { FaultRequestError } from "./book.ts";
import type { DockerEngine } from "./docker-engine.ts";

/** The compose service whose image (busybox: `ip` and `sh`) the route helpers run. */
export const NETWORK_TOOLS_SERVICE = "network-tools";

export interface ComposePartitions {
  /** The cuts in place now, read from the running nodes' routing tables. */
  current(): Promise<Cut[]>;
  apply(cuts: Cut[]): Promise<void>;
  /** Deletes every cut (and only the cuts); returns those it found. */
  heal(): Promise<Cut[]>;
}

interface NodeNet {
  index: number;
  id: string;
  /** Its addresses on the project's networks. */
  ips: string[];
}

export function composePartitions(deps: {
  engine: DockerEngine;
  project: string;
  brokerServices: string[];
}): ComposePartitions {
  const { engine, project } = deps;

  async function toolsImage(): Promise<string> {
    const c = (await engine.listContainers(project, NETWORK_TOOLS_SERVICE))[0];
    if (!c?.image)
      throw new FaultRequestError(
        409,
        `compose project "${project}" has no ${NETWORK_TOOLS_SERVICE} container, whose image writes the routes (docker compose up creates it)`,
      );
    return c.image;
  }

  /** The running nodes, by index (rabbitmq-N is node N). */
  async function nodes(): Promise<Map<number, NodeNet>> {
    const out = new Map<number, NodeNet>();
    for (const [i, service] of deps.brokerServices.entries()) {
      const c = (await engine.listContainers(project, service))[0];
      if (c?.state !== "running") continue;
      const ips = (await engine.networks(c.id)).map((n) => n.ip).filter((ip) => ip !== "");
      out.set(i + 1, { index: i + 1, id: c.id, ips });
    }
    return out;
  }

  /** Runs a shell script in a node's network namespace; throws with its output when it fails. */
  async function inNode(image: string, node: NodeNet, script: string, what: string): Promise<string> {
    const r = await engine.runInNetworkOf(node.id, image, ["sh", "-c", script]);
    if (r.exitCode !== 0)
      throw new Error(`${what} on rabbit-${node.index}: exit ${r.exitCode}: ${r.output.trim()}`);
    return r.output;
  }

  /** The running nodes and the helper image, looked up once per operation. */
  const lookUp = async () => ({ image: await toolsImage(), all: await nodes() });

  async function cutsIn(image: string, all: Map<number, NodeNet>): Promise<Cut[]> {
    const cuts: Cut[] = [];
    for (const n of all.values()) {
      const routes = await inNode(image, n, "ip route", "reading routes");
      for (const line of routes.split("\n")) {
        const dst = /^blackhole\s+([0-9.]+)/.exec(line.trim())?.[1];
        const peer = [...all.values()].find((p) => dst !== undefined && p.ips.includes(dst));
        if (peer && !cuts.some((c) => c.from === n.index && c.to === peer.index))
          cuts.push({ from: n.index, to: peer.index });
      }
    }
    return cuts;
  }

  /** One helper per node for all of that node's cuts (add) or heals (del). */
  async function routeAll(
    cuts: Cut[],
    verb: "replace" | "del",
    image: string,
    all: Map<number, NodeNet>,
  ): Promise<void> {
    const from = [...new Set(cuts.map((c) => c.from))];
    for (const f of from) {
      const node = all.get(f);
      if (!node) throw new FaultRequestError(409, `rabbit-${f} is not running`);
      const dsts = cuts
        .filter((c) => c.from === f)
        .flatMap((c) => {
          const peer = all.get(c.to);
          if (!peer) throw new FaultRequestError(409, `rabbit-${c.to} is not running`);
          return peer.ips;
        });
      const script = dsts.map((ip) => `ip route ${verb} blackhole ${ip}/32`).join(" && ");
      await inNode(image, node, script, verb === "del" ? "healing" : "cutting");
    }
  }

  return {
    async current() {
      const { image, all } = await lookUp();
      return await cutsIn(image, all);
    },
    async apply(cuts) {
      const { image, all } = await lookUp();
      await routeAll(cuts, "replace", image, all);
    },
    async heal() {
      const { image, all } = await lookUp();
      const found = await cutsIn(image, all);
      await routeAll(found, "del", image, all);
      return found;
    },
  };
}

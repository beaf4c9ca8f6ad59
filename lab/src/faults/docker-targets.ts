// What the docker fault actions act on: a request's target resolved to a compose service, and each
// service's one container looked up by its compose labels and driven through the engine.
import { FaultRequestError } from "./book.ts";
import type { ContainerNetwork, ContainerSummary, DockerEngine } from "./docker-engine.ts";
import { createLeaderLookup, createQueueLister } from "./docker-management.ts";
import { type ComposePartitions, composePartitions } from "./docker-partitions.ts";

export interface ComposeTargetsDeps {
  engine: DockerEngine;
  project: string;
  managementUrls: string[];
  readyTimeoutMs?: number;
  readyPollMs?: number;
}

export interface ComposeTargets {
  /** "order" | "relay:order" ... -> its compose service; 400 for another name. */
  appService(target: string): string;
  /** "rabbit-N" (or N, rabbitmq-N, rabbit@rabbitmq-N) or, when allowed, "leader:QUEUE" -> its node. */
  node(selector: string, leaderAllowed: boolean): Promise<{ service: string; node: string }>;
  running(service: string): Promise<boolean>;
  /** SIGKILL; then, when startAgain, start it at once without waiting (as a supervisor would). */
  kill(service: string, startAgain: boolean): Promise<ContainerSummary>;
  /** A graceful stop with the service's grace period of docker-compose.yml. */
  stop(service: string): Promise<ContainerSummary>;
  /** Start and wait until its health check passes (or until it runs, for one without a check). */
  start(service: string): Promise<ContainerSummary>;
  restart(service: string): Promise<ContainerSummary>;
  /** Whether the service's container is attached to any network. */
  attached(service: string): Promise<boolean>;
  /** Detaches the container from every network it is on; its processes and sockets stay as they are. */
  disconnect(service: string): Promise<ContainerSummary>;
  /** Attaches it again to the networks it was detached from (the project's default one if unknown). */
  connect(service: string): Promise<ContainerSummary>;
  /** The broker nodes' services that run (true) or do not (false) now. */
  brokerServices(running: boolean): Promise<string[]>;
  allBrokerServices: string[];
  /** Cuts between the broker nodes (docker-partitions.ts). */
  partitions: ComposePartitions;
  /** The node (1..3) leading the most queues, from the management API. */
  busiestLeader(): Promise<number>;
}

const APPS: Record<string, string> = {
  order: "order",
  inventory: "inventory",
  points: "points",
  "relay:order": "relay-order",
  "relay:inventory": "relay-inventory",
  "relay:points": "relay-points",
};
const NODE_COUNT = 3;
const BROKER_SERVICES = Array.from({ length: NODE_COUNT }, (_, i) => `rabbitmq-${i + 1}`);

/** docker-compose.yml's stop_grace_period of each service: a stop never cuts a graceful shutdown short. */
function stopTimeoutS(service: string): number {
  if (service.startsWith("rabbitmq-")) return 60;
  if (service === "redis") return 10;
  return 30;
}

const badRequest = (message: string) => new FaultRequestError(400, message);

export function composeTargets(deps: ComposeTargetsDeps): ComposeTargets {
  const { engine, project } = deps;
  const readyTimeoutMs = deps.readyTimeoutMs ?? 180_000;
  const readyPollMs = deps.readyPollMs ?? 1_000;
  const leaderOf = createLeaderLookup(deps.managementUrls);
  const listQueues = createQueueLister(deps.managementUrls, 5_000);

  async function container(service: string): Promise<ContainerSummary> {
    const c = (await engine.listContainers(project, service))[0];
    if (!c)
      throw new FaultRequestError(
        409,
        `compose project "${project}" has no container of service ${service} (is it up?)`,
      );
    return c;
  }

  async function waitHealthy(c: ContainerSummary): Promise<void> {
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      const s = await engine.inspect(c.id);
      if (s.running && (s.health === undefined || s.health === "healthy")) return;
      if (Date.now() >= deadline)
        throw new Error(
          `${c.service} (${c.name}) is not healthy ${readyTimeoutMs / 1000} s after its start (${s.status}${s.health ? `, ${s.health}` : ""})`,
        );
      await new Promise((r) => setTimeout(r, readyPollMs));
    }
  }

  const running = async (service: string) => (await engine.inspect((await container(service)).id)).running;
  // What each disconnect detached, so the connect restores exactly those networks and aliases.
  const detached = new Map<string, ContainerNetwork[]>();

  return {
    appService(target) {
      const s = Object.hasOwn(APPS, target) ? APPS[target] : undefined;
      if (!s) throw badRequest(`unknown app "${target}"; apps: ${Object.keys(APPS).join(", ")}`);
      return s;
    },
    async node(selector, leaderAllowed) {
      let n: number;
      if (selector.startsWith("leader:")) {
        if (!leaderAllowed) throw badRequest(`takes a node (rabbit-1..${NODE_COUNT}), not "${selector}"`);
        n = await leaderOf(selector.slice("leader:".length));
      } else {
        const m = /^(?:rabbit-|rabbitmq-|rabbit@rabbitmq-)?(\d+)$/.exec(selector);
        n = m ? Number(m[1]) : 0;
        if (n < 1 || n > NODE_COUNT)
          throw badRequest(
            `unknown broker node "${selector}"; nodes: rabbit-1..${NODE_COUNT} or leader:QUEUE`,
          );
      }
      return { service: `rabbitmq-${n}`, node: `rabbit-${n}` };
    },
    running,
    async kill(service, startAgain) {
      const c = await container(service);
      await engine.kill(c.id, "SIGKILL");
      if (startAgain) await engine.start(c.id);
      return c;
    },
    async stop(service) {
      const c = await container(service);
      await engine.stop(c.id, stopTimeoutS(service));
      return c;
    },
    async start(service) {
      const c = await container(service);
      await engine.start(c.id);
      await waitHealthy(c);
      return c;
    },
    async restart(service) {
      const c = await container(service);
      await engine.restart(c.id, stopTimeoutS(service));
      await waitHealthy(c);
      return c;
    },
    attached: async (service) => (await engine.networks((await container(service)).id)).length > 0,
    async disconnect(service) {
      const c = await container(service);
      const nets = await engine.networks(c.id);
      for (const n of nets) await engine.disconnect(n.id, c.id);
      detached.set(service, nets);
      return c;
    },
    async connect(service) {
      const c = await container(service);
      const nets = detached.get(service) ?? [
        { id: `${project}_default`, name: `${project}_default`, aliases: [service] },
      ];
      for (const n of nets) await engine.connect(n.id, c.id, n.aliases);
      detached.delete(service);
      return c;
    },
    async brokerServices(wanted) {
      const states = await Promise.all(BROKER_SERVICES.map(running));
      return BROKER_SERVICES.filter((_, i) => states[i] === wanted);
    },
    allBrokerServices: BROKER_SERVICES,
    partitions: composePartitions({ engine, project, brokerServices: BROKER_SERVICES }),
    async busiestLeader() {
      const counts = new Map<number, number>();
      for (const q of await listQueues()) if (q.leader) counts.set(q.leader, (counts.get(q.leader) ?? 0) + 1);
      return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 1;
    },
  };
}

// Every built-in fault action: how its target is checked (400), which live state it conflicts with
// (409), what it holds while applied, and its undo. Running one always goes through infra's chaos.ts, the single
// implementation the fault lab calls too.

import type { BrokerNodeLayout, Stack } from "@orderflow/infra";
import {
  appNames,
  type ChaosEvent,
  currentCuts,
  healBrokerPartition,
  isAlive,
  killApplication,
  killBrokerNode,
  leaderOf,
  nodePid,
  PARTITION_KINDS,
  type PartitionKind,
  partitionBroker,
  readDefinitions,
  readHeld,
  readState,
  redisPid,
  restartPostgresServer,
  startApplication,
  startBrokerNode,
  startRedisServer,
  startWholeBroker,
  stopApplication,
  stopBrokerNode,
  stopRedisServer,
  stopWholeBroker,
} from "@orderflow/infra";
import { parsePartitionTarget } from "./partition-target.ts";
import { badRequest, conflict, type FaultActionShape } from "./request.ts";

/** An action checked against the live state and ready to run. */
export interface PreparedFault {
  /** What it acts on ("rabbit-2@localhost", "redis", "order", ...): no other fault may touch it meanwhile. */
  holds: string[];
  run(): Promise<ChaosEvent>;
  undo?: () => Promise<ChaosEvent>;
}

export interface FaultAction extends FaultActionShape {
  /** One line of `pnpm stack chaos` usage. */
  usage: string;
  /** Checks the target (FaultRequestError 400) and the live state (409); `target` is "" when none. */
  prepare(s: Stack, target: string): Promise<PreparedFault>;
}

const short = (n: BrokerNodeLayout) => n.name.split("@")[0] as string;

function nodeByName(s: Stack, selector: string): BrokerNodeLayout {
  const n = s.layout.rabbitmq.nodes.find(
    (x) => x.name === selector || short(x) === selector || String(x.index) === selector,
  );
  if (!n)
    throw badRequest(
      `unknown broker node "${selector}"; nodes: ${s.layout.rabbitmq.nodes.map(short).join(", ")} or leader:QUEUE`,
    );
  return n;
}

/** "rabbit-N" (or its full name, or N) or "leader:QUEUE", resolved to the node now. */
async function resolveTarget(s: Stack, selector: string): Promise<BrokerNodeLayout> {
  if (!selector.startsWith("leader:")) return nodeByName(s, selector);
  const queue = selector.slice("leader:".length);
  const queues = readDefinitions().queues.map((q) => q.name);
  if (!queues.includes(queue)) throw badRequest(`unknown queue "${queue}"; queues: ${queues.join(", ")}`);
  let leader: string;
  try {
    leader = await leaderOf(s.rabbit, queue);
  } catch (e) {
    throw conflict(`no leader of ${queue} to act on: ${(e as Error).message}`);
  }
  return nodeByName(s, leader);
}

function appName(s: Stack, name: string): string {
  const names = appNames(s);
  if (!names.includes(name)) throw badRequest(`unknown app "${name}"; apps: ${names.join(", ")}`);
  return name;
}

const held = (s: Stack, name: string) => readHeld(s.layout).includes(name);
const allNodes = (s: Stack) => s.layout.rabbitmq.nodes.map((n) => n.name);

/** A partition target with its node, if it names one, resolved to this stack's node name. */
function partitionTarget(s: Stack, target: string): { kind: PartitionKind; node?: string } {
  const { kind, node } = parsePartitionTarget(target);
  return { kind, ...(node !== undefined ? { node: nodeByName(s, node).name } : {}) };
}

async function requireNamespaces(s: Stack): Promise<void> {
  if (!s.layout.rabbitmq.network)
    throw conflict("the broker nodes share the host's network: partitions need `pnpm stack up --netns`");
}

const APP = "<order|inventory|points|relay:SERVICE>[#N]";
const PARTITION = `<${PARTITION_KINDS.join("|")}>[:rabbit-N]`;
const NODE = "<rabbit-N|leader:QUEUE>";

export const FAULT_ACTIONS: Record<string, FaultAction> = {
  kill: {
    usage: `kill ${APP}  SIGKILL a service or relay (restarted)`,
    target: APP,
    undoable: false,
    prepare: async (s, target) => {
      const name = appName(s, target);
      if (held(s, name)) throw conflict(`${name} is held stopped; start it first`);
      const pid = readState(s.layout)?.apps[name]?.pid ?? undefined;
      if (!isAlive(pid)) throw conflict(`${name} is not running`);
      return { holds: [name], run: () => killApplication(name, s) };
    },
  },
  stop: {
    usage: "stop <app>                           stop a service or relay and keep it down",
    target: "<app>",
    undoable: true,
    prepare: async (s, target) => {
      const name = appName(s, target);
      if (held(s, name)) throw conflict(`${name} is already held stopped`);
      return {
        holds: [name],
        run: () => stopApplication(name, s),
        undo: () => startApplication(name, s),
      };
    },
  },
  start: {
    usage: "start <app>                          let a stopped service or relay run again",
    target: "<app>",
    undoable: false,
    prepare: async (s, target) => {
      const name = appName(s, target);
      if (!held(s, name)) throw conflict(`${name} is not held stopped`);
      return { holds: [name], run: () => startApplication(name, s) };
    },
  },
  "kill-node": {
    usage: `kill-node ${NODE}   kill -9 one broker node`,
    target: NODE,
    undoable: true,
    prepare: async (s, target) => {
      const n = await resolveTarget(s, target);
      if (!nodePid(n)) throw conflict(`${n.name} is not running`);
      return {
        holds: [n.name],
        run: () => killBrokerNode(n.name, s),
        undo: () => startBrokerNode(n.name, s),
      };
    },
  },
  "stop-node": {
    usage: `stop-node ${NODE}   stop one broker node gracefully`,
    target: NODE,
    undoable: true,
    prepare: async (s, target) => {
      const n = await resolveTarget(s, target);
      if (!nodePid(n)) throw conflict(`${n.name} is not running`);
      return {
        holds: [n.name],
        run: () => stopBrokerNode(n.name, s),
        undo: () => startBrokerNode(n.name, s),
      };
    },
  },
  "start-node": {
    usage: "start-node <rabbit-N>               start a stopped or killed node",
    target: "<rabbit-N>",
    undoable: false,
    prepare: async (s, target) => {
      const n = await resolveTarget(s, target);
      if (nodePid(n)) throw conflict(`${n.name} is already running`);
      return { holds: [n.name], run: () => startBrokerNode(n.name, s) };
    },
  },
  "stop-broker": {
    usage: "stop-broker                          stop all three nodes",
    undoable: true,
    prepare: async (s) => {
      if (s.layout.rabbitmq.nodes.every((n) => !nodePid(n))) throw conflict("no broker node is running");
      return { holds: allNodes(s), run: () => stopWholeBroker(s), undo: () => startWholeBroker(s) };
    },
  },
  "start-broker": {
    usage: "start-broker                         start all three nodes",
    undoable: false,
    prepare: async (s) => {
      if (s.layout.rabbitmq.nodes.every((n) => nodePid(n))) throw conflict("every broker node is running");
      return { holds: allNodes(s), run: () => startWholeBroker(s) };
    },
  },
  partition: {
    usage: `partition ${PARTITION}
                                       cut links between broker nodes, both ways (majorities-ring:
                                       each node stops sending to the next); halves cuts off the node
                                       leading the most queues; needs \`pnpm stack up --netns\``,
    target: PARTITION,
    undoable: true,
    prepare: async (s, target) => {
      const { kind, node } = partitionTarget(s, target);
      await requireNamespaces(s);
      if ((await currentCuts(s.layout)).length > 0)
        throw conflict("the broker is already partitioned; heal-partition first");
      return {
        holds: allNodes(s),
        run: () => partitionBroker(kind, node, s),
        undo: () => healBrokerPartition(s),
      };
    },
  },
  "heal-partition": {
    usage: "heal-partition                       restore every link a partition cut",
    undoable: false,
    prepare: async (s) => {
      await requireNamespaces(s);
      if ((await currentCuts(s.layout)).length === 0) throw conflict("no link between nodes is cut");
      return { holds: allNodes(s), run: () => healBrokerPartition(s) };
    },
  },
  "stop-redis": {
    usage: "stop-redis",
    undoable: true,
    prepare: async (s) => {
      if (!redisPid(s.layout)) throw conflict("redis is not running");
      return { holds: ["redis"], run: () => stopRedisServer(s), undo: () => startRedisServer(s) };
    },
  },
  "start-redis": {
    usage: "start-redis",
    undoable: false,
    prepare: async (s) => {
      if (redisPid(s.layout)) throw conflict("redis is already running");
      return { holds: ["redis"], run: () => startRedisServer(s) };
    },
  },
  "restart-postgres": {
    usage: "restart-postgres                     fast shutdown, then start",
    undoable: false,
    prepare: async (s) => ({ holds: ["postgres"], run: () => restartPostgresServer(s) }),
  },
};

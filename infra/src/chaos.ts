// Chaos controls on the real processes of the local stack: the single implementation under the fault
// lab's scenarios and the fault controller (lab/src/faults/book.ts: `pnpm stack chaos`, the control service). Each
// returns what it did, with timestamps for a fault timeline.
import { killApp, startApp, stopApp } from "./apps/control.ts";
import { openStack, type Stack } from "./open-stack.ts";
import {
  applyCuts,
  cutText,
  healCuts,
  type PartitionKind,
  partitionCuts,
  partitionDetail,
  partitionFocus,
} from "./partitions.ts";
import { restartPostgres } from "./postgres.ts";
import {
  ensureQueueMembers,
  killNode,
  leaderOf,
  listQueues,
  startNodes,
  stopBroker,
  stopNode,
} from "./rabbitmq.ts";
import { startRedis, stopRedis } from "./redis.ts";

export interface ChaosEvent {
  action: string;
  target: string;
  startedAt: string;
  finishedAt: string;
  detail?: Record<string, unknown>;
}

/** Runs one chaos step and records it with its start and end times (for a fault timeline). */
export async function timed(
  action: string,
  target: string,
  fn: () => Promise<Record<string, unknown> | undefined>,
): Promise<ChaosEvent> {
  const startedAt = new Date().toISOString();
  const detail = await fn();
  return { action, target, startedAt, finishedAt: new Date().toISOString(), ...(detail ? { detail } : {}) };
}

/** "rabbit-2", "rabbit-2@localhost", "2" or "leader:QUEUE" -> a node name. */
export async function resolveNode(s: Stack, selector: string): Promise<string> {
  if (selector.startsWith("leader:")) return leaderOf(s.rabbit, selector.slice("leader:".length));
  const n = s.layout.rabbitmq.nodes.find(
    (x) => x.name === selector || x.name.split("@")[0] === selector || String(x.index) === selector,
  );
  if (!n) throw new Error(`unknown broker node "${selector}" (use rabbit-1..3 or leader:QUEUE)`);
  return n.name;
}

export const killBrokerNode = (selector: string, s: Stack = openStack()) =>
  timed("kill-node", selector, async () => {
    const node = await resolveNode(s, selector);
    const pid = await killNode(s.rabbit, node);
    return { node, pid };
  });

export const stopBrokerNode = (selector: string, s: Stack = openStack()) =>
  timed("stop-node", selector, async () => {
    const node = await resolveNode(s, selector);
    await stopNode(s.rabbit, node);
    return { node };
  });

/** Starts a stopped or killed node and waits until it has rejoined and its queue members are back online. */
export const startBrokerNode = (selector: string, s: Stack = openStack()) =>
  timed("start-node", selector, async () => {
    const node = await resolveNode(s, selector);
    await startNodes(s.rabbit, [node]);
    await ensureQueueMembers(s.rabbit);
    return { node };
  });

export const stopWholeBroker = (s: Stack = openStack()) =>
  timed("stop-broker", "rabbitmq", async () => void (await stopBroker(s.rabbit)));

export const startWholeBroker = (s: Stack = openStack()) =>
  timed("start-broker", "rabbitmq", async () => {
    await startNodes(s.rabbit);
    await ensureQueueMembers(s.rabbit);
    return undefined;
  });

export const stopRedisServer = (s: Stack = openStack()) =>
  timed("stop-redis", "redis", async () => void (await stopRedis(s.layout)));
export const startRedisServer = (s: Stack = openStack()) =>
  timed("start-redis", "redis", async () => void (await startRedis(s.layout, s.secrets.redis)));
export const restartPostgresServer = (s: Stack = openStack()) =>
  timed("restart-postgres", "postgres", async () => void (await restartPostgres(s.pg)));

export const killApplication = (name: string, s: Stack = openStack()) =>
  timed("kill", name, () => killApp(s, name));
export const stopApplication = (name: string, s: Stack = openStack()) =>
  timed("stop", name, () => stopApp(s, name));
export const startApplication = (name: string, s: Stack = openStack()) =>
  timed("start", name, async () => void (await startApp(s, name)));

/** The node leading the most queues (the management API's view). */
async function busiestLeader(s: Stack): Promise<number> {
  const nodes = s.layout.rabbitmq.nodes;
  const leaders = (await listQueues(s.rabbit)).map((q) => q.leader);
  const count = (name: string) => leaders.filter((l) => l === name).length;
  return [...nodes].sort((a, b) => count(b.name) - count(a.name))[0]?.index ?? 1;
}

/** Cuts the links of a partition between the broker nodes (needs `up --netns`; partitions.ts). */
export const partitionBroker = (kind: PartitionKind, selector?: string, s: Stack = openStack()) =>
  timed("partition", selector ? `${kind}:${selector}` : kind, async () => {
    const nodes = s.layout.rabbitmq.nodes.map((n) => n.index);
    const named = selector ? await resolveNode(s, selector) : undefined;
    const focus = named
      ? (s.layout.rabbitmq.nodes.find((n) => n.name === named)?.index ?? 1)
      : await partitionFocus(kind, nodes, () => busiestLeader(s));
    const cuts = partitionCuts(kind, nodes, focus);
    await applyCuts(s.layout, cuts);
    return partitionDetail(kind, nodes, focus, cuts);
  });

/** Restores every link a partition cut. */
export const healBrokerPartition = (s: Stack = openStack()) =>
  timed("heal-partition", "rabbitmq", async () => ({ healed: (await healCuts(s.layout)).map(cutText) }));

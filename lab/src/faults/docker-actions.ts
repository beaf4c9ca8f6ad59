// The control service's fault controller in compose: the actions of `pnpm stack chaos`, done to the
// project's containers through the Docker Engine API instead of to local processes. Same interface as
// the local stack's createFaultController (book.ts), same 400/409 rules (the live state a conflict is
// judged on comes from container inspect), same holds and timed undo.
import {
  cutText,
  PARTITION_KINDS,
  type PartitionKind,
  partitionCuts,
  partitionDetail,
  partitionFocus,
  timed,
} from "@orderflow/infra";
import { type BookAction, createFaultBook, type FaultController, FaultRequestError } from "./book.ts";
import type { DockerEngine } from "./docker-engine.ts";
import { type ComposeTargets, composeTargets } from "./docker-targets.ts";
import { parsePartitionTarget } from "./partition-target.ts";

/** An action of this controller: checks its target (400) and the containers' state (409), then runs. */
export interface DockerFaultAction extends BookAction {
  usage: string;
}

export interface DockerFaultDeps {
  engine: DockerEngine;
  /** The compose project (label com.docker.compose.project) whose containers are acted on. */
  project: string;
  /** Management API URLs of the broker nodes with the admin's user and password, tried in turn (leader:QUEUE). */
  managementUrls: string[];
  /** Actions beyond the containers' own (the control service's publish-poison); same names replace built-ins. */
  extraActions?: Record<string, DockerFaultAction>;
  log?: (message: string) => void;
  historyLimit?: number;
  /** How long a started container may take to become healthy (default 180 s: a node waits for its peers). */
  readyTimeoutMs?: number;
  readyPollMs?: number;
}

export function createDockerFaultController(deps: DockerFaultDeps): FaultController {
  return createFaultBook(
    { ...dockerFaultActions(composeTargets(deps)), ...deps.extraActions },
    {
      ...(deps.log ? { log: deps.log } : {}),
      ...(deps.historyLimit ? { historyLimit: deps.historyLimit } : {}),
    },
  );
}

const conflict = (message: string) => new FaultRequestError(409, message);
const APP = "<order|inventory|points|relay:SERVICE>";
const NODE = "<rabbit-N|leader:QUEUE>";
const PARTITION = `<${PARTITION_KINDS.join("|")}>[:rabbit-N]`;

/** A partition target with its node, if it names one, resolved to a node index (rabbitmq-N is N). */
async function partitionTarget(
  t: ComposeTargets,
  target: string,
): Promise<{ kind: PartitionKind; node: number | undefined }> {
  const { kind, node } = parsePartitionTarget(target);
  const index =
    node === undefined ? undefined : Number((await t.node(node, false)).node.slice("rabbit-".length));
  return { kind, node: index };
}

/** The actions of `pnpm stack chaos` on compose containers; the state checks read container inspect. */
export function dockerFaultActions(t: ComposeTargets): Record<string, DockerFaultAction> {
  const startNode = (service: string, node: string) =>
    timed("start-node", node, async () => ({ node, container: (await t.start(service)).name }));
  const startBroker = (services: string[]) =>
    timed("start-broker", "rabbitmq", async () => {
      // Together: a node that starts alone waits for its peers before it counts as running.
      await Promise.all(services.map((s) => t.start(s)));
      return { started: services };
    });
  const connectApp = (name: string, service: string) =>
    timed("connect", name, async () => ({ container: (await t.connect(service)).name }));
  const startApp = (name: string, service: string) =>
    timed("start", name, async () => ({ container: (await t.start(service)).name }));
  const healPartition = () =>
    timed("heal-partition", "rabbitmq", async () => ({ healed: (await t.partitions.heal()).map(cutText) }));

  return {
    kill: {
      usage: `kill ${APP}  SIGKILL a service or relay (started again)`,
      target: APP,
      undoable: false,
      prepare: async (target) => {
        const service = t.appService(target);
        if (!(await t.running(service))) throw conflict(`${target} is not running`);
        return {
          holds: [service],
          // The engine does not restart a container it SIGKILLed itself (the restart policy waits for
          // the next start); the local stack's supervisor restarts a killed app, so this starts it the
          // same way, without waiting for it to be ready.
          run: () =>
            timed("kill", target, async () => ({
              container: (await t.kill(service, true)).name,
              restarted: true,
            })),
        };
      },
    },
    stop: {
      usage: "stop <app>                           stop a service or relay and keep it down",
      target: "<app>",
      undoable: true,
      prepare: async (target) => {
        const service = t.appService(target);
        if (!(await t.running(service))) throw conflict(`${target} is already stopped`);
        return {
          holds: [service],
          run: () => timed("stop", target, async () => ({ container: (await t.stop(service)).name })),
          undo: () => startApp(target, service),
        };
      },
    },
    start: {
      usage:
        "start <app>                          start a stopped service or relay and wait until it is ready",
      target: "<app>",
      undoable: false,
      prepare: async (target) => {
        const service = t.appService(target);
        if (await t.running(service)) throw conflict(`${target} is not stopped`);
        return { holds: [service], run: () => startApp(target, service) };
      },
    },
    disconnect: {
      usage: `disconnect ${APP}  detach its container from the network (sockets stay open, packets go nowhere)`,
      target: APP,
      undoable: true,
      prepare: async (target) => {
        const service = t.appService(target);
        if (!(await t.attached(service))) throw conflict(`${target} is already disconnected`);
        return {
          holds: [service],
          run: () =>
            timed("disconnect", target, async () => ({ container: (await t.disconnect(service)).name })),
          undo: () => connectApp(target, service),
        };
      },
    },
    connect: {
      usage: `connect ${APP}     attach a disconnected container to its networks again`,
      target: APP,
      undoable: false,
      prepare: async (target) => {
        const service = t.appService(target);
        if (await t.attached(service)) throw conflict(`${target} is not disconnected`);
        return { holds: [service], run: () => connectApp(target, service) };
      },
    },
    "kill-node": {
      usage: `kill-node ${NODE}   SIGKILL one broker node's container`,
      target: NODE,
      undoable: true,
      prepare: async (target) => {
        const { service, node } = await t.node(target, true);
        if (!(await t.running(service))) throw conflict(`${node} is not running`);
        return {
          holds: [service],
          run: () =>
            timed("kill-node", target, async () => ({
              node,
              container: (await t.kill(service, false)).name,
            })),
          undo: () => startNode(service, node),
        };
      },
    },
    "stop-node": {
      usage: `stop-node ${NODE}   stop one broker node's container gracefully`,
      target: NODE,
      undoable: true,
      prepare: async (target) => {
        const { service, node } = await t.node(target, true);
        if (!(await t.running(service))) throw conflict(`${node} is not running`);
        return {
          holds: [service],
          run: () =>
            timed("stop-node", target, async () => ({ node, container: (await t.stop(service)).name })),
          undo: () => startNode(service, node),
        };
      },
    },
    "start-node": {
      usage: "start-node <rabbit-N>               start a stopped or killed node, wait until healthy",
      target: "<rabbit-N>",
      undoable: false,
      prepare: async (target) => {
        const { service, node } = await t.node(target, false);
        if (await t.running(service)) throw conflict(`${node} is already running`);
        return { holds: [service], run: () => startNode(service, node) };
      },
    },
    "stop-broker": {
      usage: "stop-broker                          stop the three nodes' containers",
      undoable: true,
      prepare: async () => {
        const up = await t.brokerServices(true);
        if (up.length === 0) throw conflict("no broker node is running");
        return {
          holds: t.allBrokerServices,
          run: () =>
            timed("stop-broker", "rabbitmq", async () => {
              await Promise.all(up.map((s) => t.stop(s)));
              return { stopped: up };
            }),
          undo: async () => startBroker(await t.brokerServices(false)),
        };
      },
    },
    "start-broker": {
      usage: "start-broker                         start the nodes' containers that are down",
      undoable: false,
      prepare: async () => {
        const down = await t.brokerServices(false);
        if (down.length === 0) throw conflict("every broker node is running");
        return { holds: t.allBrokerServices, run: () => startBroker(down) };
      },
    },
    partition: {
      usage: `partition ${PARTITION}
                                       cut links between broker nodes, both ways (majorities-ring:
                                       each node stops sending to the next); halves cuts off the node
                                       leading the most queues`,
      target: PARTITION,
      undoable: true,
      prepare: async (target) => {
        const { kind, node } = await partitionTarget(t, target);
        if ((await t.partitions.current()).length > 0)
          throw conflict("the broker is already partitioned; heal-partition first");
        return {
          holds: t.allBrokerServices,
          run: () =>
            timed("partition", target, async () => {
              const nodes = t.allBrokerServices.map((_, i) => i + 1);
              const focus = node ?? (await partitionFocus(kind, nodes, () => t.busiestLeader()));
              const cuts = partitionCuts(kind, nodes, focus);
              await t.partitions.apply(cuts);
              return partitionDetail(kind, nodes, focus, cuts);
            }),
          undo: () => healPartition(),
        };
      },
    },
    "heal-partition": {
      usage: "heal-partition                       restore every link a partition cut",
      undoable: false,
      prepare: async () => {
        if ((await t.partitions.current()).length === 0) throw conflict("no link between nodes is cut");
        return { holds: t.allBrokerServices, run: () => healPartition() };
      },
    },
    "stop-redis": {
      usage: "stop-redis",
      undoable: true,
      prepare: async () => {
        if (!(await t.running("redis"))) throw conflict("redis is not running");
        return {
          holds: ["redis"],
          run: () => timed("stop-redis", "redis", async () => void (await t.stop("redis"))),
          undo: () => timed("start-redis", "redis", async () => void (await t.start("redis"))),
        };
      },
    },
    "start-redis": {
      usage: "start-redis",
      undoable: false,
      prepare: async () => {
        if (await t.running("redis")) throw conflict("redis is already running");
        return {
          holds: ["redis"],
          run: () => timed("start-redis", "redis", async () => void (await t.start("redis"))),
        };
      },
    },
    "restart-postgres": {
      usage: "restart-postgres                     restart the container, wait until healthy",
      undoable: false,
      prepare: async () => ({
        holds: ["postgres"],
        run: () => timed("restart-postgres", "postgres", async () => void (await t.restart("postgres"))),
      }),
    },
  };
}

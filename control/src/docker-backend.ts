// The docker backend's parts, for the control service in compose (CONTROL_BACKEND=docker): the fault
// controller on the project's containers, and the sources the flow reads there (container states, the
// management API's queues, the services' /metrics on the compose network) in the local flow's shapes.
import dns from "node:dns/promises";
import { SERVICE_NAMES, type ServiceName } from "@orderflow/infra";
import type { FaultController } from "@orderflow/lab";
import { createDockerFaultController, type DockerFaultAction } from "@orderflow/lab/faults/docker-actions.ts";
import { createDockerEngine, type DockerEngine } from "@orderflow/lab/faults/docker-engine.ts";
import { createQueueLister, type QueueDepth } from "@orderflow/lab/faults/docker-management.ts";
import { dockerPublishPoisonAction } from "@orderflow/lab/faults/poison.ts";
import type { ControlBackend } from "./app.ts";
import { type AuditSources, auditSince, readFrom } from "./audit-since.ts";
import { type ComposeStatus, composeStatus } from "./docker-status.ts";
import { createFlowSampler } from "./flow-sampler.ts";
import { createUnrunnableScenarios } from "./scenario-runs.ts";

export interface DockerBackendOptions {
  /** DOCKER_SOCKET */
  socketPath: string;
  /** CONTROL_COMPOSE_PROJECT */
  project: string;
  /** CONTROL_RABBITMQ_MANAGEMENT_URL, split at commas */
  managementUrls: string[];
  extraActions?: Record<string, DockerFaultAction>;
  log?: (message: string) => void;
}

export interface DockerBackendParts {
  engine: DockerEngine;
  faults: FaultController;
  /** Nodes, services, relays, Redis and PostgreSQL up or down, named as the local flow names them. */
  status: () => Promise<ComposeStatus>;
  listQueues: () => Promise<QueueDepth[]>;
  /** Where each service's /metrics answers: every container of docker-compose.yml's services. */
  serviceUrls: () => Promise<Record<ServiceName, string[]>>;
  /** Ready while any container of the project runs: showing a stopped part is what this service is for. */
  stackReady: () => Promise<boolean>;
}

export function createDockerBackendParts(o: DockerBackendOptions): DockerBackendParts {
  const engine = createDockerEngine({ socketPath: o.socketPath });
  return {
    engine,
    faults: createDockerFaultController({
      engine,
      project: o.project,
      managementUrls: o.managementUrls,
      ...(o.extraActions ? { extraActions: o.extraActions } : {}),
      ...(o.log ? { log: o.log } : {}),
    }),
    status: () => composeStatus(engine, o.project),
    listQueues: createQueueLister(o.managementUrls),
    serviceUrls: () => composeServiceUrls(),
    stackReady: async () => (await engine.listContainers(o.project)).some((c) => c.state === "running"),
  };
}

export interface DockerControlOptions extends DockerBackendOptions {
  /** CONTROL_RABBITMQ_AMQP_URL, split at commas: the broker admin's AMQP URLs (publish-poison). */
  amqpAdminUrls: string[];
  /** CONTROL_{ORDER,INVENTORY,POINTS}_DATABASE_URL: read-only access for the audit. */
  databaseUrls: Record<ServiceName, string>;
  /** Where the scenarios' report folder would be (GET /reports/*: nothing runs here, so nothing in it). */
  reportsDir: string;
}

export const SCENARIOS_NEED_LOCAL_STACK =
  "scenario runs restart the local stack's processes with variants, so they need the local stack " +
  "(pnpm stack up); in compose, run the k6 scripts (docker compose --profile load run --rm k6 run /scripts/NAME.js; load/k6/README.md)";

/** The control service's backend in compose: the same flow sampler and audit as locally, over the parts' sources. */
export function createDockerBackend(o: DockerControlOptions): ControlBackend & { close(): Promise<void> } {
  // publish-poison asks the parts' own container listing whether any node runs.
  const anyNodeUp = async () => (await parts.status()).nodes.some((n) => n.up);
  const parts = createDockerBackendParts({
    ...o,
    extraActions: {
      "publish-poison": dockerPublishPoisonAction(o.amqpAdminUrls, anyNodeUp),
      ...o.extraActions,
    },
  });
  const flow = createFlowSampler(
    { serviceUrls: parts.serviceUrls, listQueues: parts.listQueues, status: parts.status },
    { faults: () => parts.faults.active(), scenario: () => null, ...(o.log ? { log: o.log } : {}) },
  );
  const auditSources: AuditSources = {
    read: readFrom(o.databaseUrls),
    serviceUrls: async () => Object.values(await parts.serviceUrls()).flat(),
    listQueues: parts.listQueues,
  };
  return {
    faults: parts.faults,
    flow,
    audit: (q) => auditSince(auditSources, q),
    scenarios: createUnrunnableScenarios(SCENARIOS_NEED_LOCAL_STACK, o.reportsDir),
    stackReady: parts.stackReady,
    async close() {
      await flow.close();
      // Undoes every timed fault still active (a node it stopped is started again).
      await parts.faults.close();
    },
  };
}

const COMPOSE_PORTS: Record<ServiceName, number> = { order: 3001, inventory: 3002, points: 3003 };

/**
 * Every container of each service (`--scale order=2` runs two): compose's DNS answers a service's name
 * with each container's address. A name that does not resolve (the service stopped) keeps the name.
 */
async function composeServiceUrls(): Promise<Record<ServiceName, string[]>> {
  const urls = async (svc: ServiceName) => {
    const found = await dns.lookup(svc, { all: true, family: 4 }).catch(() => []);
    const hosts = found.length > 0 ? found.map((a) => a.address).sort() : [svc];
    return hosts.map((h) => `http://${h}:${COMPOSE_PORTS[svc]}`);
  };
  const [order, inventory, points] = await Promise.all(SERVICE_NAMES.map(urls));
  return { order: order ?? [], inventory: inventory ?? [], points: points ?? [] };
}

// What is up in compose, for the flow's tiles: one container listing of the project gives the broker
// nodes, the services and relays, Redis and PostgreSQL, named as the local stack names them.
import type { DockerEngine } from "@orderflow/lab/faults/docker-engine.ts";

export interface ComposeStatus {
  nodes: { name: string; up: boolean }[];
  services: { name: string; kind: "service" | "relay"; up: boolean }[];
  redis: { up: boolean };
  postgres: { up: boolean };
}

const SERVICES = ["order", "inventory", "points"] as const;

/** Up = its container runs (the listing's state; one call per tick, no inspect of each). */
export async function composeStatus(engine: DockerEngine, project: string): Promise<ComposeStatus> {
  const containers = await engine.listContainers(project);
  const up = (service: string) => containers.some((c) => c.service === service && c.state === "running");
  return {
    nodes: [1, 2, 3].map((n) => ({ name: `rabbit-${n}`, up: up(`rabbitmq-${n}`) })),
    services: [
      ...SERVICES.map((s) => ({ name: s, kind: "service" as const, up: up(s) })),
      ...SERVICES.map((s) => ({ name: `relay:${s}`, kind: "relay" as const, up: up(`relay-${s}`) })),
    ],
    redis: { up: up("redis") },
    postgres: { up: up("postgres") },
  };
}

// The only reader of the environment for the control service (see .env.example). The local backend
// opens the stack from the ORDERFLOW_* variables that infra's own env.ts reads; the docker backend
// (docker-compose.yml's `control` service) is given the compose names of everything it reads.
import { ConfigError, list, oneOf, port, type RawEnv, readEnv, str, token, url } from "@orderflow/config";
import type { ServiceName } from "@orderflow/infra";

/** What only the docker backend reads: required with CONTROL_BACKEND=docker. */
export interface DockerControlEnv {
  dockerSocket: string;
  /** The compose project whose containers the docker backend acts on. */
  composeProject: string;
  /** The broker nodes' management API URLs, with the admin's user and password, tried in turn. */
  managementUrls: string[];
  /** The broker admin's AMQP URLs (publish-poison), tried in turn. */
  amqpAdminUrls: string[];
  /** A read-only login to each service's database, for the audit. */
  databaseUrls: Record<ServiceName, string>;
}

export interface ControlEnv {
  /** Loopback by default: GETs need no token, so the service must not be reachable from elsewhere. */
  host: string;
  port: number;
  /** Bearer token of every POST. */
  token: string;
  /** local: the stack's own processes; docker: the containers of a compose project. */
  backend: "local" | "docker";
  /** Set with CONTROL_BACKEND=docker only. */
  docker: DockerControlEnv | undefined;
}

const pgUrl = (name: string) => url(name, ["postgres:", "postgresql:"]);

export function readControlEnv(env: RawEnv = process.env): ControlEnv {
  const e = readEnv(
    {
      host: str("CONTROL_HOST").default("127.0.0.1"),
      port: port("CONTROL_PORT").default(17080),
      token: token("CONTROL_TOKEN").required(),
      backend: oneOf("CONTROL_BACKEND", ["local", "docker"] as const).default("local"),
      dockerSocket: str("DOCKER_SOCKET").default("/var/run/docker.sock"),
      composeProject: str("CONTROL_COMPOSE_PROJECT"),
      managementUrls: list("CONTROL_RABBITMQ_MANAGEMENT_URL", url("", ["http:", "https:"])),
      amqpAdminUrls: list("CONTROL_RABBITMQ_AMQP_URL", url("", ["amqp:", "amqps:"])),
      orderDb: pgUrl("CONTROL_ORDER_DATABASE_URL"),
      inventoryDb: pgUrl("CONTROL_INVENTORY_DATABASE_URL"),
      pointsDb: pgUrl("CONTROL_POINTS_DATABASE_URL"),
    },
    env,
  );
  const base = { host: e.host, port: e.port, token: e.token, backend: e.backend };
  if (e.backend === "local") return { ...base, docker: undefined };
  const missing = (
    [
      ["CONTROL_COMPOSE_PROJECT", e.composeProject],
      ["CONTROL_RABBITMQ_MANAGEMENT_URL", e.managementUrls?.length ? e.managementUrls : undefined],
      ["CONTROL_RABBITMQ_AMQP_URL", e.amqpAdminUrls?.length ? e.amqpAdminUrls : undefined],
      ["CONTROL_ORDER_DATABASE_URL", e.orderDb],
      ["CONTROL_INVENTORY_DATABASE_URL", e.inventoryDb],
      ["CONTROL_POINTS_DATABASE_URL", e.pointsDb],
    ] as const
  )
    .filter(([, v]) => v === undefined)
    .map(([name]) => name);
  if (missing.length > 0)
    throw new ConfigError(missing.map((name) => `${name}: required with CONTROL_BACKEND=docker`));
  return {
    ...base,
    docker: {
      dockerSocket: e.dockerSocket,
      composeProject: e.composeProject as string,
      managementUrls: e.managementUrls as string[],
      amqpAdminUrls: e.amqpAdminUrls as string[],
      databaseUrls: {
        order: e.orderDb as string,
        inventory: e.inventoryDb as string,
        points: e.pointsDb as string,
      },
    },
  };
}

// Where every part of the local stack lives: ports and folders. Pure: derived from the env only.
import path from "node:path";
import type { InfraEnv } from "./env.ts";

/** Standard ports that other instances on the same host may hold: the stack never binds them. */
export const FORBIDDEN_PORTS = [5432, 6379, 5672, 15672, 25672, 4369] as const;

export const BROKER_NODE_COUNT = 3;

/** `pnpm stack up --replicas N`: at most this many of each service and of each relay. */
export const MAX_REPLICAS = 4;

/**
 * The port instance `instance` (1..MAX_REPLICAS) of an app listens on: instance 1 keeps the layout's
 * port, each further one sits 10 above the one before, clear of the neighbouring services' ports.
 */
export const instancePort = (port: number, instance: number): number => port + 10 * (instance - 1);

export interface BrokerNodeLayout {
  index: number;
  name: string;
  /** The address clients reach it on: loopback, or its own namespace's address with `up --netns`. */
  host: string;
  /** With `up --netns`: the network namespace it runs in, and its epmd's PID file there. */
  netns?: { name: string; hostLink: string; epmdPidFile: string };
  amqpPort: number;
  managementPort: number;
  prometheusPort: number;
  distPort: number;
  dir: string;
  pidFile: string;
  configFile: string;
  logDir: string;
}

export interface MonitorLayout {
  port: number;
  dir: string;
  pidFile: string;
  logFile: string;
}

export interface Layout {
  stackDir: string;
  postgres: { port: number; dir: string; dataDir: string; socketDir: string; logFile: string };
  redis: { port: number; dir: string; pidFile: string; logFile: string };
  epmd: { port: number; pidFile: string; logFile: string };
  rabbitmq: {
    dir: string;
    homeDir: string;
    pluginsFile: string;
    ctlDistPortMin: number;
    ctlDistPortMax: number;
    nodes: BrokerNodeLayout[];
    /** With `up --netns`: the bridge joining the nodes' namespaces to the host (see netns.ts). */
    network?: BrokerNetworkLayout;
  };
  /** Monitoring: each a process of its own with its folder (config, data), PID file and log. */
  prometheus: MonitorLayout & { configFile: string; rulesDir: string; targetsDir: string; dataDir: string };
  alertmanager: MonitorLayout & { configFile: string; dataDir: string };
  postgresExporter: MonitorLayout;
  redisExporter: MonitorLayout;
  /**
   * The control service (the fault lab's HTTP API and console): `pidFile` holds the service's PID,
   * `keeperPidFile` the keeper's that restarts it; both write to `logFile`.
   */
  control: MonitorLayout & { keeperPidFile: string };
  /** Each relay's /metrics port (OUTBOX_METRICS_PORT), scraped by Prometheus; replicas: instancePort. */
  relayMetricsPorts: { order: number; inventory: number; points: number };
  secretsFile: string;
  /**
   * HTTP ports of the services (order, inventory, points), reserved here so nothing else takes them;
   * the replicas of `up --replicas N` listen on instancePort.
   */
  servicePorts: { order: number; inventory: number; points: number };
}

export interface BrokerNetworkLayout {
  bridge: string;
  /** The bridge's address, the host's side of the nodes' subnet (a /24). */
  gateway: string;
  prefixLength: number;
  /** Erlang's own host table (ERL_INETRC): every node's host name to its address, for nodes and CLI. */
  inetrcFile: string;
  /** Present while the stack runs its nodes in namespaces: `up --netns` writes it, `down` removes it. */
  markerFile: string;
}

/** Where `up --netns` leaves its marker, read before the layout exists (open-stack.ts). */
export const netnsMarkerFile = (stackDir: string) => path.join(stackDir, "broker-netns.json");

/**
 * Names and addresses of the namespaces, links and bridge, derived from the port offset so that two
 * stacks side by side never share one; interface names stay within Linux's 15 characters.
 */
function brokerNetwork(dir: string, o: number): BrokerNetworkLayout & { address(i: number): string } {
  const net = `10.${200 + (Math.floor(o / 250) % 50)}.${o % 250}`;
  return {
    bridge: `of${o}br`,
    gateway: `${net}.1`,
    prefixLength: 24,
    inetrcFile: path.join(dir, "rabbitmq", "inetrc"),
    markerFile: netnsMarkerFile(dir),
    address: (i) => `${net}.${10 + i}`,
  };
}

export function stackLayout(
  env: Pick<InfraEnv, "stackDir" | "portOffset">,
  opts: { netns?: boolean } = {},
): Layout {
  const o = env.portOffset;
  const dir = env.stackDir;
  const rabbitDir = path.join(dir, "rabbitmq");
  const { address, ...network } = brokerNetwork(dir, o);
  const nodes: BrokerNodeLayout[] = [];
  for (let i = 1; i <= BROKER_NODE_COUNT; i++) {
    const nodeDir = path.join(rabbitDir, `rabbit-${i}`);
    nodes.push({
      index: i,
      // In a namespace the host part is a name of the node's own (resolved by the inetrc file): the
      // nodes no longer share localhost.
      name: opts.netns ? `rabbit-${i}@orderflow-broker-${i}` : `rabbit-${i}@localhost`,
      host: opts.netns ? address(i) : "127.0.0.1",
      ...(opts.netns
        ? {
            netns: {
              name: `orderflow-${o}-broker-${i}`,
              hostLink: `of${o}v${i}`,
              epmdPidFile: path.join(nodeDir, "epmd.pid"),
            },
          }
        : {}),
      amqpPort: 17671 + i + o,
      managementPort: 17681 + i + o,
      prometheusPort: 17691 + i + o,
      distPort: 17701 + i + o,
      dir: nodeDir,
      pidFile: path.join(nodeDir, "beam.pid"),
      configFile: path.join(nodeDir, "rabbitmq.conf"),
      logDir: path.join(nodeDir, "log"),
    });
  }
  const pgDir = path.join(dir, "postgres");
  const redisDir = path.join(dir, "redis");
  const monitor = (name: string, port: number): MonitorLayout => {
    const d = path.join(dir, name);
    return {
      port: port + o,
      dir: d,
      pidFile: path.join(d, `${name}.pid`),
      logFile: path.join(d, `${name}.log`),
    };
  };
  const prometheus = monitor("prometheus", 17090);
  const alertmanager = monitor("alertmanager", 17093);
  const control = monitor("control", 17080);
  return {
    stackDir: dir,
    postgres: {
      port: 17432 + o,
      dir: pgDir,
      dataDir: path.join(pgDir, "data"),
      socketDir: path.join(pgDir, "run"),
      logFile: path.join(pgDir, "postgres.log"),
    },
    redis: {
      port: 17379 + o,
      dir: redisDir,
      pidFile: path.join(redisDir, "redis.pid"),
      logFile: path.join(redisDir, "redis.log"),
    },
    epmd: {
      port: 17369 + o,
      pidFile: path.join(rabbitDir, "epmd.pid"),
      logFile: path.join(rabbitDir, "epmd.log"),
    },
    rabbitmq: {
      dir: rabbitDir,
      homeDir: path.join(rabbitDir, "home"),
      pluginsFile: path.join(rabbitDir, "enabled_plugins"),
      ctlDistPortMin: 17710 + o,
      ctlDistPortMax: 17729 + o,
      nodes,
      ...(opts.netns ? { network } : {}),
    },
    prometheus: {
      ...prometheus,
      configFile: path.join(prometheus.dir, "prometheus.yml"),
      rulesDir: path.join(prometheus.dir, "rules"),
      targetsDir: path.join(prometheus.dir, "targets"),
      dataDir: path.join(prometheus.dir, "data"),
    },
    alertmanager: {
      ...alertmanager,
      configFile: path.join(alertmanager.dir, "alertmanager.yml"),
      dataDir: path.join(alertmanager.dir, "data"),
    },
    postgresExporter: monitor("postgres-exporter", 17187),
    redisExporter: monitor("redis-exporter", 17121),
    control: { ...control, keeperPidFile: path.join(control.dir, "keeper.pid") },
    relayMetricsPorts: { order: 17801 + o, inventory: 17802 + o, points: 17803 + o },
    secretsFile: path.join(dir, "secrets.json"),
    servicePorts: { order: 3001 + o, inventory: 3002 + o, points: 3003 + o },
  };
}

export function allPorts(layout: Layout): number[] {
  const r = layout.rabbitmq;
  return [
    layout.postgres.port,
    layout.redis.port,
    layout.epmd.port,
    ...r.nodes.flatMap((n) => [n.amqpPort, n.managementPort, n.prometheusPort, n.distPort]),
    layout.prometheus.port,
    layout.alertmanager.port,
    layout.postgresExporter.port,
    layout.redisExporter.port,
    layout.control.port,
    ...Object.values(layout.relayMetricsPorts),
    ...Object.values(layout.servicePorts),
  ];
}

// Where every part of the local stack lives: ports and folders. Pure: derived from the env only.
import path from "node:path";
import type { InfraEnv } from "./env.ts";

/** Standard ports that other instances on the same host may hold: the stack never binds them. */
export const FORBIDDEN_PORTS = [5432, 6379, 5672, 15672, 25672, 4369] as const;

export const BROKER_NODE_COUNT = 3;

export interface BrokerNodeLayout {
  index: number;
  name: string;
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
  /** Each relay's /metrics port (OUTBOX_METRICS_PORT), scraped by Prometheus. */
  relayMetricsPorts: { order: number; inventory: number; points: number };
  secretsFile: string;
  /** HTTP ports of the services (order, inventory, points), reserved here so nothing else takes them. */
  servicePorts: { order: number; inventory: number; points: number };
}

export function stackLayout(env: Pick<InfraEnv, "stackDir" | "portOffset">): Layout {
  const o = env.portOffset;
  const dir = env.stackDir;
  const rabbitDir = path.join(dir, "rabbitmq");
  const nodes: BrokerNodeLayout[] = [];
  for (let i = 1; i <= BROKER_NODE_COUNT; i++) {
    const nodeDir = path.join(rabbitDir, `rabbit-${i}`);
    nodes.push({
      index: i,
      name: `rabbit-${i}@localhost`,
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

// The local stack as a whole: up (idempotent, returns when healthy), down (stops exactly what it
// started), status (machine-readable). Exported for tests and the fault lab.
import fs from "node:fs";
import {
  alertmanagerHealthy,
  alertmanagerPid,
  alertmanagerUrl,
  startAlertmanager,
  stopAlertmanager,
} from "./alertmanager.ts";
import {
  type AppStatus,
  appsStatus,
  appsVariantInUse,
  restartAppsWith,
  startApps,
  stopApps,
} from "./apps/control.ts";
import {
  type ControlStatus,
  controlKeeperPid,
  controlStatus,
  startControl,
  stopControl,
} from "./control-process.ts";
import { ensureInstalled, requirements } from "./debian-packages.ts";
import { readInfraEnv } from "./env.ts";
import {
  type ExporterName,
  exporterHealthy,
  exporterPid,
  exporterUrl,
  startExporter,
  stopExporters,
} from "./exporters.ts";
import { allPorts, FORBIDDEN_PORTS, type Layout, netnsMarkerFile, stackLayout } from "./layout.ts";
import { createBrokerNetwork, netnsUnsupported, removeBrokerNetwork } from "./netns.ts";
import { openStack, runsInNamespaces, type Stack } from "./open-stack.ts";
import { currentCuts } from "./partitions.ts";
import {
  adminUrl,
  postgresHealth,
  postgresPid,
  provisionDatabases,
  serviceUrl,
  startPostgres,
  stopPostgres,
} from "./postgres.ts";
import {
  prometheusHealthy,
  prometheusPid,
  prometheusUrl,
  startPrometheus,
  stopPrometheus,
} from "./prometheus.ts";
import {
  brokerHealth,
  ensureQueueMembers,
  epmdPid,
  importTopology,
  nodePid,
  startNodes,
  stopBroker,
  stopEpmd,
} from "./rabbitmq.ts";
import { pingRedis, redisPid, redisUrl, startRedis, stopRedis } from "./redis.ts";
import { readSecrets } from "./secrets.ts";
import {
  BROKER_ADMIN,
  BROKER_VHOST,
  brokerUser,
  databaseName,
  databaseRole,
  SERVICE_NAMES,
} from "./services.ts";

function checkPorts(layout: Layout): void {
  const clash = allPorts(layout).filter((p) => (FORBIDDEN_PORTS as readonly number[]).includes(p));
  if (clash.length > 0) throw new Error(`the stack would bind reserved standard ports: ${clash.join(", ")}`);
}

export async function up(
  log: (m: string) => void = () => {},
  opts: { apps?: boolean; netns?: boolean; replicas?: number } = {},
): Promise<{ seconds: number; status: StackStatus }> {
  const t0 = Date.now();
  const env = readInfraEnv();
  await ensureInstalled(
    requirements({ postgresBinDir: env.postgresBinDir, rabbitmqBinDir: env.rabbitmqBinDir }),
    env.isRoot,
    log,
  );
  if (opts.netns) await chooseNamespaces(env);
  else if (runsInNamespaces(env)) log("the broker nodes stay in their namespaces (started with --netns)");
  const s = openStack(env);
  checkPorts(s.layout);
  fs.mkdirSync(s.layout.stackDir, { recursive: true });
  log(`stack folder ${s.layout.stackDir}`);
  if (s.layout.rabbitmq.network) {
    await createBrokerNetwork(s.layout);
    const net = s.layout.rabbitmq.network;
    log(`broker nodes in namespaces of their own on ${net.bridge} (${net.gateway}/${net.prefixLength})`);
  }
  // The broker is the slowest to boot: start it first and bring up the rest meanwhile.
  const broker = startNodes(s.rabbit, undefined, log).then(() => importTopology(s.rabbit));
  const postgres = startPostgres(s.pg).then(() => provisionDatabases(s.pg));
  const redis = startRedis(s.layout, s.secrets.redis);
  const monitoring = startMonitoring(s, { reconfigure: true, postgresReady: postgres });
  const results = await Promise.allSettled([postgres, redis, broker, monitoring]);
  const failed = results.flatMap((r, i) =>
    r.status === "rejected"
      ? [`${["PostgreSQL", "Redis", "RabbitMQ", "monitoring"][i]}: ${(r.reason as Error).message}`]
      : [],
  );
  if (failed.length > 0) throw new Error(`stack up failed:\n  ${failed.join("\n  ")}`);
  if (opts.apps !== false) {
    log("infrastructure healthy; starting the services and their relays");
    // A count given restarts apps running another; without one, what runs keeps its own.
    if (opts.replicas !== undefined) await restartAppsWith(s, appsVariantInUse(s), opts.replicas);
    else await startApps(s);
  }
  // After the apps: its flow reads their metrics, and it comes up to a stack that is whole.
  await startControl(s);
  const status = await stackStatus(s);
  if (!status.healthy)
    throw new Error(`stack up finished but is not healthy: ${JSON.stringify(status.problems)}`);
  return { seconds: (Date.now() - t0) / 1000, status };
}

/**
 * `up --netns` on a stack whose broker runs on loopback would start a second cluster beside the first
 * under other node names: the nodes must be stopped first. The marker is written before any namespace
 * is made, though `down` finds them by name either way.
 */
async function chooseNamespaces(env: ReturnType<typeof readInfraEnv>): Promise<void> {
  if (runsInNamespaces(env)) return;
  const why = await netnsUnsupported(env.isRoot);
  if (why) throw new Error(why);
  const loopback = stackLayout(env);
  if (loopback.rabbitmq.nodes.some((n) => nodePid(n)))
    throw new Error("the broker runs on the host's loopback: `pnpm stack down` first, then `up --netns`");
  fs.mkdirSync(env.stackDir, { recursive: true });
  fs.writeFileSync(netnsMarkerFile(env.stackDir), `${JSON.stringify({ since: new Date().toISOString() })}\n`);
}

/**
 * Prometheus, Alertmanager and the two exporters. `reconfigure` (stack up) copies the repository's
 * config and rules again and has running ones reload; without it only stopped ones start (with the
 * config as the last `up` left it), so a heal never trips over a rules file being edited.
 */
async function startMonitoring(
  s: Stack,
  opts: { reconfigure: boolean; postgresReady?: Promise<void> },
): Promise<void> {
  const { layout } = s;
  await Promise.all([
    opts.reconfigure || !prometheusPid(layout) ? startPrometheus(layout) : undefined,
    opts.reconfigure || !alertmanagerPid(layout) ? startAlertmanager(layout) : undefined,
    // After provisioning, which creates the exporter's role.
    (opts.postgresReady ?? Promise.resolve()).then(() => startExporter(s, "postgres")),
    startExporter(s, "redis"),
  ]);
}

/** The parts of the infrastructure (PostgreSQL, Redis, each broker node), each with its live PID if any. */
export function infrastructureParts(s: Stack): { name: string; pid: number | undefined }[] {
  return [
    { name: "postgres", pid: postgresPid(s.layout) },
    { name: "redis", pid: redisPid(s.layout) },
    ...s.layout.rabbitmq.nodes.map((n) => ({ name: n.name, pid: nodePid(n) })),
  ];
}

/** The parts of the infrastructure without a live process. */
export const infrastructureDown = (s: Stack): string[] =>
  infrastructureParts(s)
    .filter((p) => p.pid === undefined)
    .map((p) => p.name);

/**
 * Starts whatever part of the infrastructure is down (a fault script that failed half-way, an operator's
 * chaos command left undone) and waits until it is healthy again; cheap when all is well. Returns the
 * parts it found down, so a test or the fault lab can say that it repaired something. The control
 * service counts too once its keeper is gone (while the keeper runs, restarting it is the keeper's job).
 */
export async function healInfrastructure(s: Stack, log: (m: string) => void = () => {}): Promise<string[]> {
  const down = infrastructureDown(s);
  const controlDown = controlKeeperPid(s.layout) === undefined;
  await Promise.all([
    startPostgres(s.pg),
    startRedis(s.layout, s.secrets.redis),
    startNodes(s.rabbit, undefined, log).then(() => ensureQueueMembers(s.rabbit)),
    startMonitoring(s, { reconfigure: false }),
  ]);
  // Last: the control service opens the stack's databases and broker as it starts.
  if (controlDown) await startControl(s);
  return controlDown ? [...down, "control"] : down;
}

export async function down(): Promise<void> {
  const env = readInfraEnv();
  if (!readSecrets(stackLayout(env).secretsFile)) return; // never started here: nothing to stop
  const s = openStack(env, false);
  // First: it would otherwise see the apps and the broker go and report, or undo a fault, meanwhile.
  await stopControl(s.layout);
  await stopApps(s);
  await Promise.all([
    stopPrometheus(s.layout),
    stopAlertmanager(s.layout),
    stopExporters(s.layout),
    stopBroker(s.rabbit),
    stopPostgres(s.pg),
    stopRedis(s.layout),
  ]);
  await stopEpmd(s.layout);
  // By name, marker or not: a SIGKILLed `up --netns` may have left namespaces behind.
  if (env.isRoot) await removeBrokerNetwork(stackLayout(env, { netns: true }));
  fs.rmSync(netnsMarkerFile(env.stackDir), { force: true });
}

export interface StackStatus {
  healthy: boolean;
  problems: string[];
  stackDir: string;
  postgres: {
    healthy: boolean;
    url: string;
    port: number;
    pid: number | null;
    databases: Record<string, { name: string; role: string; url: string; healthy: boolean; error?: string }>;
  };
  redis: { healthy: boolean; url: string; port: number; pid: number | null };
  rabbitmq: {
    healthy: boolean;
    vhost: string;
    epmd: { port: number; pid: number | null };
    nodes: {
      name: string;
      running: boolean;
      pid: number | null;
      amqpUrl: string;
      amqpPort: number;
      managementUrl: string;
      managementPort: number;
      prometheusUrl: string;
      distPort: number;
    }[];
    users: Record<string, { username: string; password: string; amqpUrls: string[] }>;
    queues: { name: string; leader: string | null; members: string[]; online: string[]; messages: number }[];
    /**
     * Where the nodes' traffic runs: "loopback", or "netns" (`up --netns`) with the bridge, each node's
     * namespace and address, and the links cut now (`from` drops what it sends to `to`).
     */
    network: {
      mode: "loopback" | "netns";
      bridge: string | null;
      namespaces: { node: string; netns: string; address: string }[];
      cuts: { from: string; to: string }[];
    };
    problems: string[];
  };
  services: AppStatus[];
  /** The fault lab's API and live console (token: its POSTs' bearer token). */
  control: ControlStatus;
  prometheus: MonitorStatus;
  alertmanager: MonitorStatus;
  /** Their /metrics URLs. */
  exporters: Record<ExporterName, MonitorStatus>;
}

export interface MonitorStatus {
  url: string;
  healthy: boolean;
  pid: number | null;
}

export async function stackStatus(s: Stack = openStack(readInfraEnv(), false)): Promise<StackStatus> {
  const { layout, secrets } = s;
  const [pgHealth, redisOk, broker, apps, control, promOk, amOk, pgExporterOk, redisExporterOk, cuts] =
    await Promise.all([
      postgresPid(layout) ? postgresHealth(s.pg) : undefined,
      redisPid(layout) ? pingRedis(layout.redis.port, s.secrets.redis) : false,
      brokerHealth(s.rabbit),
      appsStatus(s),
      controlStatus(s),
      prometheusHealthy(layout),
      alertmanagerHealthy(layout),
      exporterHealthy(s, "postgres"),
      exporterHealthy(s, "redis"),
      layout.rabbitmq.network ? currentCuts(layout) : [],
    ]);
  const monitor = (url: string, healthy: boolean, pid: number | undefined): MonitorStatus => ({
    url,
    healthy,
    pid: pid ?? null,
  });
  const prometheus = monitor(prometheusUrl(s), promOk, prometheusPid(layout));
  const alertmanager = monitor(alertmanagerUrl(s), amOk, alertmanagerPid(layout));
  const exporters = {
    postgres: monitor(exporterUrl(layout, "postgres"), pgExporterOk, exporterPid(layout, "postgres")),
    redis: monitor(exporterUrl(layout, "redis"), redisExporterOk, exporterPid(layout, "redis")),
  };
  const admin = `${encodeURIComponent(BROKER_ADMIN)}:${encodeURIComponent(secrets.brokerAdmin)}`;
  const vhost = encodeURIComponent(BROKER_VHOST);
  const nodes = layout.rabbitmq.nodes.map((n) => ({
    name: n.name,
    running: broker.runningNodes.includes(n.name),
    pid: nodePid(n) ?? null,
    amqpUrl: `amqp://${admin}@${n.host}:${n.amqpPort}/${vhost}`,
    amqpPort: n.amqpPort,
    managementUrl: `http://${admin}@${n.host}:${n.managementPort}`,
    managementPort: n.managementPort,
    prometheusUrl: `http://${n.host}:${n.prometheusPort}/metrics`,
    distPort: n.distPort,
  }));
  const users = Object.fromEntries(
    SERVICE_NAMES.map((svc) => {
      const u = brokerUser(svc);
      const cred = `${encodeURIComponent(u)}:${encodeURIComponent(secrets.broker[svc])}`;
      return [
        svc,
        {
          username: u,
          password: secrets.broker[svc],
          amqpUrls: layout.rabbitmq.nodes.map((n) => `amqp://${cred}@${n.host}:${n.amqpPort}/${vhost}`),
        },
      ];
    }),
  );
  const databases = Object.fromEntries(
    SERVICE_NAMES.map((svc) => [
      svc,
      {
        name: databaseName(svc),
        role: databaseRole(svc),
        url: serviceUrl(s.pg, svc),
        healthy: pgHealth?.databases[svc].healthy ?? false,
        ...(pgHealth?.databases[svc].error ? { error: pgHealth.databases[svc].error } : {}),
      },
    ]),
  );
  const problems: string[] = [];
  if (!pgHealth?.healthy) problems.push("postgres: not every service role can reach its database");
  if (!redisOk) problems.push("redis: no PONG");
  problems.push(...broker.problems.map((p) => `rabbitmq: ${p}`));
  if (cuts.length > 0)
    problems.push(
      `rabbitmq: ${cuts.length} one-way link cut(s) between nodes (pnpm stack chaos heal-partition)`,
    );
  if (!promOk) problems.push(`prometheus: ${prometheus.pid ? "not ready" : "not running"}`);
  if (!amOk) problems.push(`alertmanager: ${alertmanager.pid ? "not ready" : "not running"}`);
  for (const [name, e] of Object.entries(exporters))
    if (!e.healthy) problems.push(`${name}-exporter: ${e.pid ? "no metrics" : "not running"}`);
  for (const a of apps)
    if (!a.healthy) problems.push(`${a.name}: not ${a.kind === "service" ? "ready" : "running"}`);
  if (!control.healthy) problems.push(`control: ${control.pid ? "not ready" : "not running"}`);
  return {
    healthy: problems.length === 0,
    problems,
    stackDir: layout.stackDir,
    postgres: {
      healthy: pgHealth?.healthy ?? false,
      url: adminUrl(s.pg),
      port: layout.postgres.port,
      pid: postgresPid(layout) ?? null,
      databases,
    },
    redis: {
      healthy: redisOk,
      url: redisUrl(s),
      port: layout.redis.port,
      pid: redisPid(layout) ?? null,
    },
    rabbitmq: {
      healthy: broker.healthy,
      vhost: BROKER_VHOST,
      epmd: { port: layout.epmd.port, pid: epmdPid(layout) ?? null },
      nodes,
      users,
      queues: broker.queues.map((q) => ({ ...q, leader: q.leader ?? null })),
      network: {
        mode: layout.rabbitmq.network ? "netns" : "loopback",
        bridge: layout.rabbitmq.network?.bridge ?? null,
        namespaces: layout.rabbitmq.nodes.flatMap((n) =>
          n.netns ? [{ node: n.name, netns: n.netns.name, address: n.host }] : [],
        ),
        cuts: cuts.map((c) => ({ from: `rabbit-${c.from}`, to: `rabbit-${c.to}` })),
      },
      problems: broker.problems,
    },
    services: apps,
    control,
    prometheus,
    alertmanager,
    exporters,
  };
}

// The stack's 3-node RabbitMQ cluster as local processes (see shared notes: rabbitmq-local-cluster.md).
// Nodes are started together so they form one cluster on boot; the topology is imported only after all
// three are online, so every quorum queue gets three members, and leaders are then spread over the nodes.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { inheritedEnv, repoRoot } from "./env.ts";
import type { BrokerNodeLayout, Layout } from "./layout.ts";
import { inNamespace, namespacedNodes, namespaceEpmdPid } from "./netns.ts";
import {
  isAlive,
  readPid,
  run,
  runOrThrow,
  signal,
  spawnDaemon,
  stopPid,
  waitFor,
  waitForExit,
} from "./proc.ts";
import type { StackSecrets } from "./secrets.ts";
import { BROKER_ADMIN, BROKER_VHOST, brokerUser, SERVICE_NAMES } from "./services.ts";

export const DEFINITIONS_FILE = path.join(repoRoot, "infra/rabbitmq/definitions.json");

export interface RabbitDeps {
  layout: Layout;
  secrets: StackSecrets;
  binDir: string;
  /**
   * Nodes this process does not run (compose's containers): every node's management API is tried, as
   * there is no PID to tell a stopped one by.
   */
  remote?: boolean;
}

export interface Definitions {
  vhosts: { name: string }[];
  users: { name: string; tags: string[] }[];
  permissions: { user: string; vhost: string; configure: string; write: string; read: string }[];
  /** Per topic exchange: the routing keys each user may publish (write) with. */
  topic_permissions: { user: string; vhost: string; exchange: string; write: string; read: string }[];
  exchanges: { name: string; type: string }[];
  queues: { name: string; arguments: Record<string, unknown> }[];
  bindings: { source: string; destination: string; routing_key: string }[];
}

export function readDefinitions(file = DEFINITIONS_FILE): Definitions {
  return JSON.parse(fs.readFileSync(file, "utf8")) as Definitions;
}

function cliEnv(d: RabbitDeps): NodeJS.ProcessEnv {
  const r = d.layout.rabbitmq;
  return {
    PATH: inheritedEnv().PATH,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    HOME: r.homeDir,
    RABBITMQ_CONF_ENV_FILE: "/dev/null",
    ERL_EPMD_PORT: String(d.layout.epmd.port),
    ERL_EPMD_ADDRESS: "127.0.0.1",
    RABBITMQ_CTL_DIST_PORT_MIN: String(r.ctlDistPortMin),
    RABBITMQ_CTL_DIST_PORT_MAX: String(r.ctlDistPortMax),
    ERL_CRASH_DUMP: path.join(r.dir, "cli_erl_crash.dump"),
    // Nodes in namespaces have host names of their own, which only this file resolves.
    ...(r.network ? { ERL_INETRC: r.network.inetrcFile } : {}),
  };
}

/** An address as Erlang writes it: 127.0.0.1 -> {127,0,0,1}. */
const erlangAddress = (host: string) => `{${host.split(".").join(",")}}`;

function nodeEnv(d: RabbitDeps, n: BrokerNodeLayout): NodeJS.ProcessEnv {
  return {
    ...cliEnv(d),
    RABBITMQ_NODENAME: n.name,
    RABBITMQ_NODE_PORT: String(n.amqpPort),
    RABBITMQ_DIST_PORT: String(n.distPort),
    RABBITMQ_CONFIG_FILE: n.configFile,
    RABBITMQ_ENABLED_PLUGINS_FILE: d.layout.rabbitmq.pluginsFile,
    RABBITMQ_MNESIA_BASE: path.join(n.dir, "mnesia"),
    RABBITMQ_LOG_BASE: n.logDir,
    RABBITMQ_PID_FILE: n.pidFile,
    // One scheduler per node: the three nodes share the machine with the database and the services, and
    // two schedulers each only made them wake and steal work from one another (pnpm bench: the
    // broker's CPU per order 5.6 -> 4.6 ms at 125 orders/s, idle 31 -> 25 ms/s). Dirty I/O schedulers
    // (the Raft WAL's fsync) are unchanged. Unbound (+sbt u): RabbitMQ's default bind type (+stbt db)
    // pins each node's first scheduler to the first core, so with one scheduler each all three nodes ran
    // on core 0 alone, a Raft round waiting on three processes taking turns on one core.
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: `+S 1:1 +sbt u -kernel inet_dist_use_interface ${erlangAddress(n.host)}`,
    ERL_CRASH_DUMP: path.join(n.dir, "erl_crash.dump"),
    // Peers look a node's distribution port up in its namespace's own epmd, on its address.
    ...(n.netns ? { ERL_EPMD_ADDRESS: `127.0.0.1,${n.host}` } : {}),
  };
}

export function ctl(
  d: RabbitDeps,
  tool: "rabbitmqctl" | "rabbitmq-queues",
  node: string,
  args: string[],
  timeoutMs = 60_000,
) {
  return run(path.join(d.binDir, tool), ["-n", node, ...args], {
    env: cliEnv(d),
    cwd: d.layout.rabbitmq.dir,
    timeoutMs,
  });
}

/**
 * Broker settings the local nodes are written with; infra/rabbitmq/compose/rabbitmq.conf holds the same
 * lines (a test checks).
 *
 * The quorum queues' write-ahead log rolls over at 64 MiB instead of 512. At each roll-over a node moves
 * what the log holds into its queues' segment files and drops it from memory: with 512 MiB that took
 * about a second of one core, and every queue led from or replicated on that node waited behind it
 * (pnpm bench: at 200 orders/s a forced roll-over of a ~200 MiB log held orders up to 1 s, and a natural
 * one put one of a bench's three half-rate runs at p99 705 ms against 160 and 187). At 64 MiB a node
 * rolls over about once a minute at that rate, and each one held a handful of orders for at most ~0.3 s.
 * Durability is the same: every entry is still fsynced to the log before it is confirmed.
 */
export const RABBITMQ_SETTINGS = ["raft.wal_max_size_bytes = 67108864"] as const;

/**
 * Settings of the local nodes only. RabbitMQ 3.x keeps the cluster's metadata in Mnesia, which on its
 * own never heals a partition: with the default (ignore), a halves partition held for 80 s and then
 * healed left the cut-off node running as a cluster of its own, each side listing the other as
 * partitioned, until it was restarted. With autoheal the nodes agree on a winning side once the links
 * are back and restart the others: the same partition was whole 4-8 s after the heal. Not
 * pause_minority: it pauses a node that sees itself alone also when its two peers were stopped, so
 * with quorum lost the survivor closed every client's connection instead of leaving publishes to time
 * out on a silent broker (packages/messaging/test/quorum-loss.test.ts). RabbitMQ 4.3 (compose's image)
 * keeps metadata in Khepri, a Raft log, and ignores the key.
 */
export const LOCAL_RABBITMQ_SETTINGS = ["cluster_partition_handling = autoheal"] as const;

function writeNodeFiles(d: RabbitDeps): void {
  const r = d.layout.rabbitmq;
  fs.mkdirSync(r.homeDir, { recursive: true });
  const cookie = path.join(r.homeDir, ".erlang.cookie");
  if (!fs.existsSync(cookie)) fs.writeFileSync(cookie, d.secrets.erlangCookie, { mode: 0o400 });
  fs.writeFileSync(r.pluginsFile, "[rabbitmq_management,rabbitmq_prometheus].\n");
  for (const n of r.nodes) {
    fs.mkdirSync(n.logDir, { recursive: true });
    const peers = r.nodes.map((p, i) => `cluster_formation.classic_config.nodes.${i + 1} = ${p.name}`);
    fs.writeFileSync(
      n.configFile,
      [
        "# Generated by the orderflow stack CLI; the admin password comes from the stack's secrets.",
        `listeners.tcp.1 = ${n.host}:${n.amqpPort}`,
        `management.tcp.ip = ${n.host}`,
        `management.tcp.port = ${n.managementPort}`,
        `prometheus.tcp.ip = ${n.host}`,
        `prometheus.tcp.port = ${n.prometheusPort}`,
        "loopback_users = none",
        `default_vhost = ${BROKER_VHOST}`,
        `default_user = ${BROKER_ADMIN}`,
        `default_pass = ${d.secrets.brokerAdmin}`,
        "default_user_tags.administrator = true",
        "cluster_formation.peer_discovery_backend = classic_config",
        ...peers,
        "log.console = false",
        "log.file.level = info",
        ...RABBITMQ_SETTINGS,
        ...LOCAL_RABBITMQ_SETTINGS,
        "",
      ].join("\n"),
      { mode: 0o600 },
    );
  }
}

export function epmdPid(layout: Layout): number | undefined {
  const pid = readPid(layout.epmd.pidFile);
  return isAlive(pid) ? pid : undefined;
}

/** The host's epmd (the CLI tools register there) and, with --netns, one in each node's namespace. */
async function startEpmd(layout: Layout): Promise<void> {
  const port = String(layout.epmd.port);
  if (!epmdPid(layout)) {
    const pid = spawnDaemon("epmd", ["-port", port, "-address", "127.0.0.1"], {
      logFile: layout.epmd.logFile,
    });
    fs.writeFileSync(layout.epmd.pidFile, `${pid}\n`);
    await waitFor("epmd", () => isAlive(pid), { timeoutMs: 5_000 });
  }
  for (const n of namespacedNodes(layout)) {
    if (namespaceEpmdPid(n)) continue;
    const [cmd, args] = inNamespace(n, "epmd", ["-port", port, "-address", `127.0.0.1,${n.host}`]);
    const pid = spawnDaemon(cmd, args, { logFile: path.join(n.dir, "epmd.log") });
    fs.writeFileSync(n.netns.epmdPidFile, `${pid}\n`);
    await waitFor(`epmd of ${n.name}`, () => isAlive(pid), { timeoutMs: 5_000 });
  }
}

export function nodePid(n: BrokerNodeLayout): number | undefined {
  const pid = readPid(n.pidFile);
  return isAlive(pid) ? pid : undefined;
}

export function findNode(layout: Layout, name: string): BrokerNodeLayout {
  const n = layout.rabbitmq.nodes.find(
    (x) => x.name === name || x.name.split("@")[0] === name || String(x.index) === name,
  );
  if (!n)
    throw new Error(
      `unknown broker node "${name}"; nodes: ${layout.rabbitmq.nodes.map((x) => x.name).join(", ")}`,
    );
  return n;
}

// While a node boots (seconds before it writes its PID file), a second launcher (a heal in another
// process, the control service's timed undo) must not launch it again: the duplicate fails on the taken
// ports and, exiting, removes the PID file of the first, which then runs on unknown to every later start.
// So a launch is marked in the node's folder (who, when) until the node answers.
const LAUNCH_WINDOW_MS = 120_000;
const launchMark = (n: BrokerNodeLayout) => path.join(n.dir, "launching.json");

function launchUnderWay(n: BrokerNodeLayout): boolean {
  try {
    const m = JSON.parse(fs.readFileSync(launchMark(n), "utf8")) as { pid: number; at: number };
    return isAlive(m.pid) && Date.now() - m.at < LAUNCH_WINDOW_MS;
  } catch {
    return false;
  }
}

/** `force`: after the stuck ones were killed, whoever marked a launch before. */
function launchNode(d: RabbitDeps, n: BrokerNodeLayout, force = false): void {
  if (nodePid(n) || (!force && launchUnderWay(n))) return;
  fs.mkdirSync(n.dir, { recursive: true });
  fs.writeFileSync(launchMark(n), JSON.stringify({ pid: process.pid, at: Date.now() }));
  fs.rmSync(n.pidFile, { force: true });
  const [cmd, args] = inNamespace(n, path.join(d.binDir, "rabbitmq-server"), []);
  spawnDaemon(cmd, args, {
    env: nodeEnv(d, n),
    cwd: n.dir,
    logFile: path.join(n.logDir, "stdout.log"),
  });
}

async function waitNodeRunning(d: RabbitDeps, n: BrokerNodeLayout, timeoutMs: number): Promise<void> {
  await waitFor(
    `broker node ${n.name} (see ${n.logDir})`,
    async () => {
      if (!nodePid(n)) return false;
      const r = await ctl(d, "rabbitmqctl", n.name, ["status"], 15_000);
      return r.code === 0 && /Uptime/i.test(r.stdout);
    },
    { timeoutMs, intervalMs: 1_000 },
  );
  fs.rmSync(launchMark(n), { force: true });
}

async function launchAndWait(
  d: RabbitDeps,
  targets: BrokerNodeLayout[],
  timeoutMs: number,
  force = false,
): Promise<void> {
  for (const n of targets) launchNode(d, n, force);
  await Promise.all(targets.map((n) => waitNodeRunning(d, n, timeoutMs)));
  await waitFor(
    "all 3 broker nodes in the cluster",
    async () => (await runningNodeNames(d)).length === d.layout.rabbitmq.nodes.length,
    // With nothing just launched, a node missing from the cluster is hung, not booting: do not wait long.
    { timeoutMs: targets.length > 0 ? 90_000 : 20_000, intervalMs: 1_000 },
  );
}

/** Nodes without a live process, or alive but not running in the cluster (hung booting or stopping). */
async function nodesOutsideCluster(d: RabbitDeps): Promise<BrokerNodeLayout[]> {
  let running: string[] = [];
  try {
    running = await runningNodeNames(d);
  } catch {
    // no management API answers: every node is suspect
  }
  return d.layout.rabbitmq.nodes.filter((n) => !nodePid(n) || !running.includes(n.name));
}

/**
 * Starts the given nodes (default: all that are not running) and waits until they run and the cluster
 * has 3. If that fails, every node outside the cluster is killed and all of them are launched again
 * together: a node booted alone after a full stop waits for its peers' tables and gives up, and on a
 * busy machine one node can miss its peers' window (a CI run once found no management API answering
 * after a whole-broker restart, and every test after it failed). Booting together is how the cluster
 * forms cleanly.
 */
export async function startNodes(
  d: RabbitDeps,
  names?: string[],
  log: (m: string) => void = () => {},
): Promise<void> {
  const r = d.layout.rabbitmq;
  writeNodeFiles(d);
  await startEpmd(d.layout);
  const wanted = names ? names.map((x) => findNode(d.layout, x)) : r.nodes;
  try {
    await launchAndWait(
      d,
      wanted.filter((n) => !nodePid(n)),
      120_000,
    );
  } catch (first) {
    const stuck = await nodesOutsideCluster(d);
    if (stuck.length === 0) return;
    log(`broker: ${(first as Error).message}; restarting ${stuck.map((n) => n.name).join(", ")} together`);
    for (const n of stuck) {
      signal(nodePid(n), "SIGKILL");
      await waitForExit(readPid(n.pidFile), 10_000);
    }
    try {
      await launchAndWait(d, stuck, 180_000, true);
    } catch (second) {
      throw new Error(
        `${(second as Error).message} (a first start failed too: ${(first as Error).message}; see ${r.dir})`,
      );
    }
  }
}

export async function stopNode(d: RabbitDeps, name: string): Promise<void> {
  const n = findNode(d.layout, name);
  const pid = nodePid(n);
  if (!pid) return;
  await ctl(d, "rabbitmqctl", n.name, ["stop", n.pidFile], 60_000);
  if (!(await waitForExit(pid, 10_000))) await stopPid(pid, 10_000);
}

export async function killNode(d: RabbitDeps, name: string): Promise<number | undefined> {
  const n = findNode(d.layout, name);
  const pid = nodePid(n);
  if (!pid) return undefined;
  signal(pid, "SIGKILL");
  await waitForExit(pid, 10_000);
  return pid;
}

export async function stopBroker(d: RabbitDeps): Promise<void> {
  await Promise.all(d.layout.rabbitmq.nodes.map((n) => stopNode(d, n.name)));
}

export async function stopEpmd(layout: Layout): Promise<void> {
  await stopPid(epmdPid(layout), 5_000);
  fs.rmSync(layout.epmd.pidFile, { force: true });
  for (const n of namespacedNodes(layout)) {
    await stopPid(namespaceEpmdPid(n), 5_000);
    fs.rmSync(n.netns.epmdPidFile, { force: true });
  }
}

// ---- management API ----

export function managementBase(n: BrokerNodeLayout): string {
  return `http://${n.host}:${n.managementPort}`;
}

async function api<T>(d: RabbitDeps, pathname: string, init: RequestInit = {}): Promise<T> {
  const auth = `Basic ${Buffer.from(`${BROKER_ADMIN}:${d.secrets.brokerAdmin}`).toString("base64")}`;
  let lastError: unknown;
  for (const n of d.layout.rabbitmq.nodes) {
    if (!d.remote && !nodePid(n)) continue;
    try {
      const res = await fetch(`${managementBase(n)}${pathname}`, {
        ...init,
        headers: { authorization: auth, "content-type": "application/json", ...(init.headers ?? {}) },
        signal: AbortSignal.timeout(5_000),
      });
      if (!res.ok) throw new Error(`${pathname}: HTTP ${res.status} ${await res.text()}`);
      const text = await res.text();
      return (text ? JSON.parse(text) : undefined) as T;
    } catch (e) {
      lastError = e;
    }
  }
  throw lastError instanceof Error ? lastError : new Error("no broker node answers its management API");
}

export interface QueueInfo {
  name: string;
  type: string;
  leader: string | undefined;
  members: string[];
  online: string[];
  messages: number;
  /** Consumers attached now (the control service's flow shows them). */
  consumers: number;
}

export async function runningNodeNames(d: RabbitDeps): Promise<string[]> {
  const nodes = await api<{ name: string; running: boolean }[]>(d, "/api/nodes");
  return nodes.filter((n) => n.running).map((n) => n.name);
}

export async function listQueues(d: RabbitDeps): Promise<QueueInfo[]> {
  const qs = await api<Record<string, unknown>[]>(d, `/api/queues/${encodeURIComponent(BROKER_VHOST)}`);
  return qs.map((q) => ({
    name: String(q.name),
    type: String(q.type),
    leader: (q.leader ?? q.node) as string | undefined,
    members: (q.members as string[] | undefined) ?? [],
    online: (q.online as string[] | undefined) ?? [],
    messages: Number(q.messages ?? 0),
    consumers: Number(q.consumers ?? 0),
  }));
}

/** Where queue Q's quorum leader runs now (asked of the broker itself, not the management cache). */
export async function leaderOf(d: RabbitDeps, queue: string): Promise<string> {
  for (const n of d.layout.rabbitmq.nodes) {
    if (!nodePid(n)) continue;
    const r = await ctl(
      d,
      "rabbitmq-queues",
      n.name,
      ["quorum_status", queue, "--vhost", BROKER_VHOST, "--formatter", "json"],
      20_000,
    );
    if (r.code !== 0) continue;
    // RabbitMQ 3.10 names the column "Node Name"; keep "Node" for other versions.
    const rows = JSON.parse(r.stdout) as { Node?: string; "Node Name"?: string; "Raft State": string }[];
    const leader = rows.find((x) => x["Raft State"] === "leader");
    const name = leader?.["Node Name"] ?? leader?.Node;
    if (name) return name;
  }
  throw new Error(`no leader found for queue ${queue}`);
}

// ---- topology ----

/**
 * A global runtime parameter of the cluster: the SHA-256 of the definitions file last imported in full,
 * the marker compose's setup (infra/rabbitmq/compose/setup.sh) keeps too.
 */
const IMPORTED_MARKER = "orderflow_definitions_sha256";

const importedSha = async (d: RabbitDeps) =>
  (await api<{ name: string; value: unknown }[]>(d, "/api/global-parameters")).find(
    (p) => p.name === IMPORTED_MARKER,
  )?.value;

/**
 * Imports infra/rabbitmq/definitions.json once all nodes are online, sets the service users' passwords.
 * The file is imported when a queue of it is missing or when it changed since its last import: a stack
 * made before a binding was added (inventory.reserved to points, say) gets the binding at its next
 * `up`, where checking the queues alone left it out and points never saw a reservation.
 */
export async function importTopology(d: RabbitDeps): Promise<void> {
  const defs = readDefinitions();
  const seed = d.layout.rabbitmq.nodes[0];
  if (!seed) throw new Error("no broker nodes in the layout");
  const sha = createHash("sha256").update(fs.readFileSync(DEFINITIONS_FILE)).digest("hex");
  const have = new Set((await listQueues(d)).map((q) => q.name));
  if (!defs.queues.every((q) => have.has(q.name)) || (await importedSha(d)) !== sha) {
    await runOrThrow(
      "import definitions",
      path.join(d.binDir, "rabbitmqctl"),
      ["-n", seed.name, "import_definitions", DEFINITIONS_FILE],
      {
        env: cliEnv(d),
        cwd: d.layout.rabbitmq.dir,
        timeoutMs: 120_000,
      },
    );
    // import_definitions returns before every queue exists.
    await waitFor(
      "every queue of the definitions file",
      async () => {
        const names = new Set((await listQueues(d)).map((q) => q.name));
        return defs.queues.every((q) => names.has(q.name));
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    // Recorded only now, so an import cut short before its queues existed runs again next time.
    await api(d, `/api/global-parameters/${IMPORTED_MARKER}`, {
      method: "PUT",
      body: JSON.stringify({ name: IMPORTED_MARKER, value: sha }),
    });
  }
  // Imported users carry no password (none is in the repository): set the generated ones.
  for (const s of SERVICE_NAMES) {
    const u = brokerUser(s);
    const out = await ctl(d, "rabbitmqctl", seed.name, ["change_password", u, d.secrets.broker[s]]);
    if (out.code !== 0) throw new Error(`setting the password of broker user ${u} failed: ${out.stderr}`);
  }
  await ensureQueueMembers(d);
}

/** Grows any quorum queue that lacks a member, then spreads leaders over the nodes. */
export async function ensureQueueMembers(d: RabbitDeps): Promise<void> {
  const nodes = d.layout.rabbitmq.nodes;
  const short = (await listQueues(d)).filter((q) => q.type === "quorum" && q.members.length < nodes.length);
  if (short.length > 0) {
    for (const n of nodes)
      await ctl(
        d,
        "rabbitmq-queues",
        n.name,
        ["grow", n.name, "all", "--vhost-pattern", `^${BROKER_VHOST}$`],
        120_000,
      );
  }
  await waitFor(
    "every quorum queue with 3 members online",
    async () =>
      (await listQueues(d)).every(
        (q) => q.type !== "quorum" || (q.members.length === nodes.length && q.online.length === nodes.length),
      ),
    // Members catch up by replaying their log; on a busy 2-core machine that took over a minute.
    { timeoutMs: 180_000, intervalMs: 500 },
  );
  const leaders = new Set((await listQueues(d)).map((q) => q.leader));
  if (leaders.size < nodes.length) {
    const seed = nodes[0];
    if (seed) await ctl(d, "rabbitmq-queues", seed.name, ["rebalance", "quorum"], 120_000);
  }
}

export interface BrokerHealth {
  healthy: boolean;
  runningNodes: string[];
  queues: QueueInfo[];
  problems: string[];
}

export async function brokerHealth(d: RabbitDeps): Promise<BrokerHealth> {
  const problems: string[] = [];
  let runningNodes: string[] = [];
  let queues: QueueInfo[] = [];
  try {
    runningNodes = await runningNodeNames(d);
    queues = await listQueues(d);
  } catch (e) {
    problems.push(`management API: ${(e as Error).message}`);
  }
  const want = d.layout.rabbitmq.nodes.length;
  if (runningNodes.length !== want) problems.push(`${runningNodes.length} of ${want} nodes running`);
  const expected = readDefinitions().queues.map((q) => q.name);
  for (const name of expected) {
    const q = queues.find((x) => x.name === name);
    if (!q) problems.push(`queue ${name} missing`);
    else if (q.online.length !== want)
      problems.push(`queue ${name}: ${q.online.length} of ${want} members online`);
  }
  return { healthy: problems.length === 0, runningNodes, queues, problems };
}

// One definitions file serves the local stack (RabbitMQ 3.10) and compose (4.x). This keeps it, and the
// compose broker files, clear of what 4.0-4.3 removed or changed (their release notes, "Breaking Changes"):
// classic queue mirroring and CQv1 removed, a default x-delivery-limit of 20 on quorum queues, transient
// non-exclusive queues, global QoS and queue-master-locator deprecated, rabbitmq.conf keys removed.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { repoRoot } from "../src/index.ts";
import { composeService, readCompose, readRepoFile } from "./compose-file.ts";

type Queue = { name: string; durable?: boolean; auto_delete?: boolean; arguments: Record<string, unknown> };
type Policy = { name: string; definition: Record<string, unknown> };
type Definitions = {
  queues: Queue[];
  policies?: Policy[];
  operator_policies?: Policy[];
  permissions: { user: string; read: string }[];
};

const definitions = (): Definitions => JSON.parse(readRepoFile("infra/rabbitmq/definitions.json"));

// Quorum queue arguments both 3.10 and 4.x accept and act on.
const QUORUM_ARGUMENTS = new Set([
  "x-queue-type",
  "x-delivery-limit",
  "x-dead-letter-exchange",
  "x-dead-letter-routing-key",
  "x-dead-letter-strategy",
  "x-overflow",
  "x-message-ttl",
  "x-expires",
  "x-max-length",
  "x-max-length-bytes",
  "x-single-active-consumer",
  "x-quorum-initial-group-size",
  "x-queue-leader-locator",
]);
const REMOVED_ARGUMENTS: Record<string, string> = {
  "x-queue-master-locator": "deprecated in 4.0, denied in 4.3: use x-queue-leader-locator",
  "x-queue-mode": "CQv1 removed: 4.3 refuses any x-queue-mode",
  "x-queue-version": "CQv1 removed: 4.3 refuses x-queue-version",
  "x-max-in-memory-length": "ignored by quorum queues since 3.12",
  "x-max-in-memory-bytes": "ignored by quorum queues since 3.12",
  "x-cancel-on-ha-failover": "classic queue mirroring removed in 4.0",
};
const REMOVED_POLICY_KEYS = /^(ha-.*|queue-master-locator|queue-mode|queue-version|max-in-memory-.*)$/;
const PARKED_FOREVER = 1_000_000;

const isParkingLot = (q: Queue) => q.name.endsWith(".parking");
const readableBySomeUser = (q: Queue, d: Definitions) =>
  d.permissions.some((p) => new RegExp(p.read).test(q.name));

/** Everything in a definitions file that 3.10 and 4.x would not both accept with the same meaning. */
function rabbitmq4Problems(d: Definitions): string[] {
  const out: string[] = [];
  for (const q of d.queues) {
    const a = q.arguments;
    if (q.durable !== true)
      out.push(`${q.name}: not durable (transient non-exclusive queues: denied in 4.3)`);
    if (q.auto_delete !== false) out.push(`${q.name}: auto_delete must be false`);
    if (a["x-queue-type"] !== "quorum")
      out.push(`${q.name}: not a quorum queue (classic queues are not replicated in 4.x)`);
    for (const key of Object.keys(a)) {
      const removed = REMOVED_ARGUMENTS[key];
      if (removed) out.push(`${q.name}: ${key}: ${removed}`);
      else if (!QUORUM_ARGUMENTS.has(key))
        out.push(`${q.name}: ${key} is not a quorum queue argument of 3.10 and 4.x`);
    }
    const overflow = a["x-overflow"];
    if (overflow !== undefined && overflow !== "reject-publish" && overflow !== "drop-head")
      out.push(`${q.name}: x-overflow ${String(overflow)} is not one quorum queues support`);
    if (a["x-dead-letter-strategy"] === "at-least-once" && overflow !== "reject-publish")
      out.push(
        `${q.name}: at-least-once dead-lettering falls back to at-most-once without x-overflow reject-publish`,
      );
    const limit = a["x-delivery-limit"];
    if (limit === undefined) {
      // 4.x gives it a limit of 20 returns; harmless only where no user can consume (TTL queues empty by expiry).
      if (readableBySomeUser(q, d) || isParkingLot(q) || a["x-message-ttl"] === undefined)
        out.push(`${q.name}: no x-delivery-limit, so 4.x drops or dead-letters a message after 20 returns`);
    } else if (!Number.isInteger(limit) || (limit as number) < 1) {
      // 4.x reads -1 as "no limit"; 3.10 compares count > limit and dead-letters at the first return.
      out.push(
        `${q.name}: x-delivery-limit ${String(limit)} must be a positive integer (3.10 and 4.x disagree on others)`,
      );
    } else if (isParkingLot(q) && (limit as number) < PARKED_FOREVER) {
      // Redrive by message id gives the others back to the parking lot, one delivery each time.
      out.push(
        `${q.name}: a parking lot needs x-delivery-limit >= ${PARKED_FOREVER}, it has no dead-letter target`,
      );
    }
  }
  for (const p of [...(d.policies ?? []), ...(d.operator_policies ?? [])])
    for (const key of Object.keys(p.definition))
      if (REMOVED_POLICY_KEYS.test(key)) out.push(`policy ${p.name}: ${key} is removed or denied in 4.x`);
  return out;
}

describe("definitions.json means the same on RabbitMQ 3.10 and 4.x", () => {
  test("nothing in it was removed or changed by 4.0-4.3", () => {
    expect(rabbitmq4Problems(definitions())).toEqual([]);
  });

  test("the same check names each thing 4.x removed or changed in a broken copy", () => {
    const d = definitions();
    const work = d.queues.find((q) => q.name === "points.order-events");
    const parking = d.queues.find((q) => q.name === "points.order-events.parking");
    const retry = d.queues.find((q) => q.name === "points.order-events.retry.1s");
    if (!work || !parking || !retry) throw new Error("definitions.json lacks the points queues");
    work.arguments["x-queue-master-locator"] = "min-masters";
    work.arguments["x-delivery-limit"] = -1;
    delete parking.arguments["x-delivery-limit"];
    retry.durable = false;
    retry.arguments["x-overflow"] = "drop-head";
    d.policies = [{ name: "mirror-all", definition: { "ha-mode": "all", "ha-sync-mode": "automatic" } }];
    expect(rabbitmq4Problems(d)).toEqual([
      "points.order-events: x-queue-master-locator: deprecated in 4.0, denied in 4.3: use x-queue-leader-locator",
      "points.order-events: x-delivery-limit -1 must be a positive integer (3.10 and 4.x disagree on others)",
      "points.order-events.parking: no x-delivery-limit, so 4.x drops or dead-letters a message after 20 returns",
      "points.order-events.retry.1s: not durable (transient non-exclusive queues: denied in 4.3)",
      "points.order-events.retry.1s: at-least-once dead-lettering falls back to at-most-once without x-overflow reject-publish",
      "policy mirror-all: ha-mode is removed or denied in 4.x",
      "policy mirror-all: ha-sync-mode is removed or denied in 4.x",
    ]);
  });

  test("work queues keep their 20-delivery limit into the parking lot, the consumers' poison rule", () => {
    const d = definitions();
    const work = d.queues.filter((q) => readableBySomeUser(q, d));
    expect(work.map((q) => q.name).sort()).toEqual([
      "inventory.order-events",
      "order.saga-replies",
      "points.order-events",
    ]);
    for (const q of work)
      expect(q.arguments).toMatchObject({
        "x-delivery-limit": 20,
        "x-dead-letter-exchange": "orderflow.parking",
      });
  });
});

describe("the compose broker's configuration", () => {
  const conf = readRepoFile("infra/rabbitmq/compose/rabbitmq.conf");
  const settings = conf
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.trimStart().startsWith("#"))
    .map((l) => {
      const m = /^([a-z0-9_.$-]+) = (\S.*)$/.exec(l);
      if (!m) throw new Error(`rabbitmq.conf: "${l}" is not "key = value"`);
      return { key: m[1] as string, value: m[2] as string };
    });
  const value = (key: string) => settings.find((s) => s.key === key)?.value;

  test("rabbitmq.conf sets no key that 4.x removed or ignores", () => {
    const removed = [
      /^cluster_formation\.randomized_startup_delay_range\./, // 4.0: the node does not boot
      /^classic_queue\.default_version$/, // 4.0: version 1 stops the node; 4.3 removes CQv1
      /^queue_master_locator$/, // deprecated for queue_leader_locator
      /^(mqtt\.default_(user|password)|amqp1_0\.default_user|rabbitmq_amqp1_0\.default_vhost)$/, // 4.0
      /^cluster_formation\.etcd\.ssl_options\.(fail_if_no_peer_cert|dh|dhfile)$/, // 4.1
      /\.cacerts$/, // 4.2
      /^cluster_partition_handling/, // 4.3: Mnesia is gone, these do nothing
      /^mnesia_table_loading_retry_/,
    ];
    for (const { key } of settings)
      for (const r of removed) expect(key, `rabbitmq.conf: ${key}`).not.toMatch(r);
  });

  test("the three nodes are the classic-config peers, with a discovery window longer than the default", () => {
    expect(value("cluster_formation.peer_discovery_backend")).toBe("classic_config");
    for (let i = 1; i <= 3; i++)
      expect(value(`cluster_formation.classic_config.nodes.${i}`)).toBe(`rabbit@rabbitmq-${i}`);
    const windowMs =
      Number(value("cluster_formation.discovery_retry_limit")) *
      Number(value("cluster_formation.discovery_retry_interval"));
    expect(windowMs).toBeGreaterThan(30 * 1_000);
  });

  test("no deprecated feature is permitted, and the ones 4.3 denies are denied already", () => {
    const permits = settings.filter((s) => s.key.startsWith("deprecated_features.permit."));
    for (const p of permits) expect(p.value, p.key).toBe("false");
    for (const f of ["transient_nonexcl_queues", "global_qos", "queue_master_locator"])
      expect(value(`deprecated_features.permit.${f}`)).toBe("false");
  });
});

/** The .ts files under packages/<name>/src and services/<name>/src. */
function clientSources(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === "node_modules" || e.name === "generated" ? [] : walk(p);
      return e.name.endsWith(".ts") ? [p] : [];
    });
  return ["packages", "services"].flatMap((top) =>
    fs
      .readdirSync(path.join(repoRoot, top))
      .map((pkg) => path.join(repoRoot, top, pkg, "src"))
      .filter((src) => fs.existsSync(src))
      .flatMap(walk),
  );
}

describe("the clients and the pinned RabbitMQ version agree", () => {
  const sources = clientSources().map((f) => ({
    file: path.relative(repoRoot, f),
    text: fs.readFileSync(f, "utf8"),
  }));

  test("no client asks for global QoS or declares a transient queue", () => {
    expect(sources.length).toBeGreaterThan(20);
    for (const { file, text } of sources) {
      expect(text, file).not.toMatch(/\.prefetch\([^)]*,\s*true\s*\)/);
      expect(text, file).not.toMatch(/assertQueue\([^)]*durable:\s*false/);
    }
  });

  test("consumers give failed deliveries back with basic.reject, the only return 4.3 counts toward the limit", () => {
    // rabbitmq-server #15387 (4.3): basic.reject(requeue) counts toward x-delivery-limit, basic.nack does
    // not, so a handler that keeps failing on a nack-requeued message would loop instead of being parked.
    const nackers = sources.filter(({ text }) => /\.nack\(/.test(text)).map((s) => s.file);
    expect(nackers).toEqual([]);
    const rejecters = sources
      .filter(({ text }) => /\.reject\([^)]*,\s*true\s*\)/.test(text))
      .map((s) => s.file);
    expect(rejecters).toEqual(
      expect.arrayContaining(["packages/messaging/src/settle.ts", "packages/messaging/src/delivery.ts"]),
    );
    const image = composeService(readCompose(), "rabbitmq-1").image ?? "";
    const version = /^rabbitmq:(\d+)\.(\d+)\.\d+-management$/.exec(image);
    expect(version, image).not.toBeNull();
    expect([Number(version?.[1]), Number(version?.[2])]).toEqual([4, 3]);
  });
});

describe("setup.sh forms one cluster or says why it cannot", () => {
  const script = readRepoFile("infra/rabbitmq/compose/setup.sh");

  test("it is valid bash and stops at the first failing command", () => {
    const r = spawnSync("bash", ["-n", path.join(repoRoot, "infra/rabbitmq/compose/setup.sh")], {
      encoding: "utf8",
    });
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(script).toMatch(/^set -euo pipefail$/m);
  });

  test("every wait has a deadline", () => {
    expect(script).toMatch(/await_online_nodes 3 --timeout \d+/);
    // The one polling loop is `within`, which gives up after its seconds.
    const code = script
      .split("\n")
      .filter((l) => !l.trimStart().startsWith("#"))
      .join("\n");
    expect(code.match(/\b(until|while)\b/g)).toEqual(["until"]);
    expect(script).toMatch(/until "\$@" >\/dev\/null 2>&1; do\n\s+\(\(SECONDS < end\)\) \|\| return 1/);
    for (const call of script.matchAll(/^\s*within (\S+) /gm)) expect(Number(call[1])).toBeGreaterThan(0);
  });

  test("a running node outside node 1's cluster is reset and joined, only when that loses no queue", () => {
    const order = ["list_queues -p", "stop_app", "reset", 'join_cluster "$SEED"', "start_app"].map((s) =>
      script.indexOf(`ctl "$node" ${s}`),
    );
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(script.indexOf('|| join_seed "$node"')).toBeGreaterThan(0);
    expect(script.indexOf('|| join_seed "$node"')).toBeLessThan(script.indexOf("await_online_nodes 3"));
  });
});

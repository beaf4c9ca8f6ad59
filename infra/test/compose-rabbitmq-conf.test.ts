// infra/rabbitmq/compose/rabbitmq.conf against what RabbitMQ 4.0-4.3 removed or now ignores (their release
// notes, "Breaking Changes"), and the cluster formation the compose nodes rely on.
import { describe, expect, test } from "vitest";
import { readRepoFile } from "./compose-file.ts";

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

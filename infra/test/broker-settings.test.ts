// The running nodes hold the tuning the stack writes (RABBITMQ_SETTINGS), read back from each node itself:
// a config key RabbitMQ did not recognise would stop the node, but one it maps somewhere else would not.

import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { beforeAll, expect, test } from "vitest";
import type { Stack } from "../src/index.ts";
import { ctl, LOCAL_RABBITMQ_SETTINGS, RABBITMQ_SETTINGS } from "../src/rabbitmq.ts";

let s: Stack;
beforeAll(async () => {
  s = await requireHealthyStack();
});

test("every broker node rolls its quorum write-ahead log over at the size the stack wrote (64 MiB)", async () => {
  const written = RABBITMQ_SETTINGS.find((l) => l.startsWith("raft.wal_max_size_bytes = "));
  expect(written).toBe(`raft.wal_max_size_bytes = ${64 * 1024 * 1024}`);
  for (const n of s.layout.rabbitmq.nodes) {
    const r = await ctl(s.rabbit, "rabbitmqctl", n.name, [
      "eval",
      "application:get_env(ra, wal_max_size_bytes).",
    ]);
    expect(r.code, `${n.name}: ${r.stderr}`).toBe(0);
    expect(r.stdout.trim(), n.name).toBe(`{ok,${64 * 1024 * 1024}}`);
  }
}, 60_000);

test("every broker node heals a partition by itself (autoheal), as the stack wrote", async () => {
  expect(LOCAL_RABBITMQ_SETTINGS).toContain("cluster_partition_handling = autoheal");
  for (const n of s.layout.rabbitmq.nodes) {
    const r = await ctl(s.rabbit, "rabbitmqctl", n.name, [
      "eval",
      "application:get_env(rabbit, cluster_partition_handling).",
    ]);
    expect(r.code, `${n.name}: ${r.stderr}`).toBe(0);
    expect(r.stdout.trim(), n.name).toBe("{ok,autoheal}");
  }
}, 60_000);

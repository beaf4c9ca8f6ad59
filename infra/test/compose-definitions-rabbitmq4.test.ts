// One definitions file serves the local stack (RabbitMQ 3.10) and compose (4.x). This keeps it clear of
// what 4.0-4.3 removed or changed (their release notes, "Breaking Changes"): classic queue mirroring and
// CQv1 removed, a default x-delivery-limit of 20 on quorum queues, transient non-exclusive queues and
// queue-master-locator deprecated.
import { describe, expect, test } from "vitest";
import { readRepoFile } from "./compose-file.ts";

type Queue = { name: string; durable?: boolean; auto_delete?: boolean; arguments: Record<string, unknown> };
type Policy = { name: string; definition: Record<string, unknown> };
type Definitions = {
  queues: Queue[];
  policies?: Policy[];
  operator_policies?: Policy[];
  permissions: { user: string; read: string }[];
};

const definitionsText = readRepoFile("infra/rabbitmq/definitions.json");
const definitions = (): Definitions => JSON.parse(definitionsText);

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

  test("each queue states its x-queue-type and nothing else has that key (setup.sh counts queues by it)", () => {
    // The broker image has no JSON tool, so infra/rabbitmq/compose/setup.sh counts this key in the text.
    const keys = definitionsText.match(/"x-queue-type"/g) ?? [];
    expect(definitions().queues.length).toBeGreaterThan(0);
    expect(keys).toHaveLength(definitions().queues.length);
  });
});

import { amqpUrls, killBrokerNode, leaderOf, openStack, startBrokerNode } from "@orderflow/infra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBrokerConnection, createConfirmPublisher, publishEvent } from "../src/index.ts";
import { type AdminBroker, openAdminBroker, purgeAll } from "./helpers/broker.ts";
import { startTestConsumer, type TestConsumer, WORK_QUEUE } from "./helpers/consumer.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/db.ts";
import { buildOrderCreated } from "./helpers/factories.ts";
import { waitFor } from "./helpers/wait.ts";

const s = openStack();
let db: TestDatabase;
let broker: AdminBroker;
let c: TestConsumer | undefined;
let killed: string | undefined;
let leader: string;
let li: number;

const nodeIndex = (name: string) => s.layout.rabbitmq.nodes.findIndex((n) => n.name === name);
/** The URL list rotated so that node `first` comes first. */
const rotate = (urls: string[], first: number) => [...urls.slice(first), ...urls.slice(0, first)];

beforeAll(async () => {
  db = await createTestDatabase(s, "failover");
  leader = await leaderOf(s.rabbit, WORK_QUEUE);
  li = nodeIndex(leader);
  // The test's own admin connection sits on a node that survives.
  broker = await openAdminBroker(s, (li + 2) % s.layout.rabbitmq.nodes.length);
  await purgeAll(broker, WORK_QUEUE);
});
afterAll(async () => {
  await c?.stop().catch(() => {});
  if (killed) await startBrokerNode(killed, s);
  await purgeAll(broker, WORK_QUEUE).catch(() => {});
  await broker.close();
  await db.drop();
}, 180_000);

describe("broker node failure", () => {
  it("the work queue's leader killed while consuming: the consumer moves to another node, no confirmed message lost, the gap reported", async () => {
    const n = s.layout.rabbitmq.nodes.length;
    // Consumer on the leader (so it loses its connection); publisher on a follower.
    c = await startTestConsumer(s, db, {
      consumerName: "failover",
      urls: rotate(amqpUrls(s, "inventory"), li),
    });
    const consumer = c;
    expect(consumer.conn.health().node).toContain(`:${s.layout.rabbitmq.nodes[li]?.amqpPort}/`);
    const pubConn = createBrokerConnection({
      urls: rotate(amqpUrls(s), (li + 1) % n),
      name: "failover-publisher",
    });
    const publisher = createConfirmPublisher(pubConn, { confirmTimeoutMs: 5_000, maxInFlight: 50 });

    const TOTAL = 600;
    const confirmed: string[] = [];
    const failed: string[] = [];
    const pending: Promise<void>[] = [];
    let killAt = 0;
    let killDone: Promise<unknown> | undefined;
    const t0 = Date.now();
    for (let i = 0; i < TOTAL; i++) {
      const id = `fo-${i}-${t0}`;
      const env = {
        messageId: id,
        type: "order.created",
        schemaVersion: 1,
        correlationId: id,
        causationId: id,
      };
      pending.push(
        publishEvent(publisher, env, buildOrderCreated()).then(
          () => void confirmed.push(id),
          () => void failed.push(id),
        ),
      );
      if (i === TOTAL / 3) {
        killAt = Date.now();
        killDone = killBrokerNode(leader, s).then(() => {
          killed = leader;
        });
      }
      // ~200 msg/s offered load.
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 50));
    }
    await Promise.all(pending);
    await killDone;

    await waitFor(
      "every confirmed message applied",
      async () => {
        const applied = new Set((await db.effects()).map((e) => e.message_id));
        return confirmed.every((id) => applied.has(id));
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    const effects = await db.effects();
    const perId = new Map<string, number>();
    for (const e of effects) perId.set(e.message_id, (perId.get(e.message_id) ?? 0) + 1);
    expect([...perId.values()].every((x) => x === 1)).toBe(true);

    // The gap: the longest pause between two applied effects after the kill, and the consumer's own view.
    const times = effects.map((e) => e.at.getTime()).sort((a, b) => a - b);
    let maxPause = 0;
    for (let i = 1; i < times.length; i++) {
      const a = times[i - 1] as number;
      const b = times[i] as number;
      if (b >= killAt) maxPause = Math.max(maxPause, b - a);
    }
    const h = consumer.consumer.health();
    const conn = consumer.conn.health();
    const report = {
      leader,
      published: TOTAL,
      confirmed: confirmed.length,
      unconfirmed: failed.length,
      applied: perId.size,
      duplicatesSkipped: h.counts.duplicate,
      consumerGapsMs: h.gaps.map((g) => g.ms),
      connectionOutagesMs: conn.outages.map((o) => o.ms),
      movedTo: conn.node,
      longestPauseBetweenEffectsMs: maxPause,
      publisher: publisher.stats(),
      publisherOutagesMs: pubConn.health().outages.map((o) => o.ms),
    };
    console.log(`failover report ${JSON.stringify(report)}`);
    expect(h.gaps.length).toBeGreaterThanOrEqual(1);
    expect(conn.node).not.toContain(`:${s.layout.rabbitmq.nodes[li]?.amqpPort}/`);
    expect(h.consuming).toBe(true);
    // Reconnect waits out the election window (>= 1.5 s) but stays well under the broken-channel gaps.
    expect(h.gaps[0]?.ms).toBeGreaterThanOrEqual(1_500);
    expect(h.gaps[0]?.ms).toBeLessThan(15_000);
    await publisher.close();
    await pubConn.close();
  });
});

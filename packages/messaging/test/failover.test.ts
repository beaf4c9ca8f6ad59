import {
  amqpUrls,
  killBrokerNode,
  leaderOf,
  openStack,
  startBrokerNode,
  stopBrokerNode,
  waitFor,
} from "@orderflow/infra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBrokerConnection, createConfirmPublisher, publishEvent } from "../src/index.ts";
import { type AdminBroker, openAdminBroker, purgeAll } from "./helpers/broker.ts";
import { startTestConsumer, WORK_QUEUE } from "./helpers/consumer.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/db.ts";
import { buildOrderCreated } from "./helpers/factories.ts";

const s = openStack();
const N = s.layout.rabbitmq.nodes.length;
let db: TestDatabase;

const nodeIndex = (name: string) => s.layout.rabbitmq.nodes.findIndex((n) => n.name === name);
const port = (i: number) => `:${s.layout.rabbitmq.nodes[i]?.amqpPort}/`;
/** The URL list rotated so that node `first` comes first. */
const rotate = (urls: string[], first: number) => [...urls.slice(first), ...urls.slice(0, first)];

beforeAll(async () => {
  db = await createTestDatabase(s, "failover");
});
afterAll(async () => {
  await db.drop();
});

/**
 * Publishes TOTAL order.created at ~200/s with confirms while a consumer applies them; kills the work
 * queue's leader a third of the way in; waits until every confirmed message is applied; restarts the node.
 */
async function leaderKillScenario(name: string, publisherOnLeader: boolean, fault: "kill" | "stop" = "kill") {
  const leader = await leaderOf(s.rabbit, WORK_QUEUE);
  const li = nodeIndex(leader);
  // The test's own admin connection sits on a node that survives.
  const broker: AdminBroker = await openAdminBroker(s, (li + 2) % N);
  await purgeAll(broker, WORK_QUEUE);
  // The consumer starts on the leader, so it loses its connection.
  const c = await startTestConsumer(s, db, {
    consumerName: name,
    urls: rotate(amqpUrls(s, "inventory"), li),
  });
  const pubConn = createBrokerConnection({
    urls: rotate(amqpUrls(s), publisherOnLeader ? li : (li + 1) % N),
    name: `${name}-publisher`,
  });
  const publisher = createConfirmPublisher(pubConn, { confirmTimeoutMs: 5_000, maxInFlight: 50 });
  let killed = false;
  try {
    expect(c.conn.health().node).toContain(port(li));
    const TOTAL = 600;
    const confirmed: string[] = [];
    const failed: { id: string; code: string }[] = [];
    const pending: Promise<void>[] = [];
    let killAt = 0;
    let killDone: Promise<unknown> | undefined;
    const t0 = Date.now();
    for (let i = 0; i < TOTAL; i++) {
      const id = `${name}-${i}-${t0}`;
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
          (e: { code?: string }) => void failed.push({ id, code: e.code ?? "?" }),
        ),
      );
      if (i === TOTAL / 3) {
        killAt = Date.now();
        killDone = (fault === "kill" ? killBrokerNode(leader, s) : stopBrokerNode(leader, s)).then(() => {
          killed = true;
        });
      }
      // Pacing of the offered load (~200 msg/s), not synchronisation.
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
    const effects = (await db.effects()).filter((e) => e.consumer === name);
    const perId = new Map<string, number>();
    for (const e of effects) perId.set(e.message_id, (perId.get(e.message_id) ?? 0) + 1);
    expect([...perId.values()].every((x) => x === 1)).toBe(true);

    // The gap: the longest pause between two applied effects after the kill, and the consumer's own view.
    const times = effects.map((e) => e.at.getTime()).sort((a, b) => a - b);
    let maxPause = 0;
    for (let i = 1; i < times.length; i++) {
      const b = times[i] as number;
      if (b >= killAt) maxPause = Math.max(maxPause, b - (times[i - 1] as number));
    }
    const h = c.consumer.health();
    const conn = c.conn.health();
    const report = {
      leader,
      fault,
      publisherOnLeader,
      published: TOTAL,
      confirmed: confirmed.length,
      unconfirmed: failed.length,
      unconfirmedBy: Object.fromEntries(
        [...new Set(failed.map((f) => f.code))].map((k) => [k, failed.filter((f) => f.code === k).length]),
      ),
      applied: perId.size,
      unconfirmedButApplied: failed.filter((f) => perId.has(f.id)).length,
      duplicatesSkipped: h.counts.duplicate,
      consumerGapsMs: h.gaps.map((g) => g.ms),
      connectionOutagesMs: conn.outages.map((o) => o.ms),
      movedTo: conn.node,
      longestPauseBetweenEffectsMs: maxPause,
      publisherInFlight: publisher.inFlight(),
      publisherOutagesMs: pubConn.health().outages.map((o) => o.ms),
    };
    console.log(`failover report ${JSON.stringify(report)}`);
    expect(h.gaps.length).toBeGreaterThanOrEqual(1);
    expect(conn.node).not.toContain(port(li));
    expect(h.consuming).toBe(true);
    // Reconnect waits out the election window (>= 1.5 s) but stays well under the broken-channel gaps.
    expect(h.gaps[0]?.ms).toBeGreaterThanOrEqual(1_500);
    expect(h.gaps[0]?.ms).toBeLessThan(15_000);
    if (publisherOnLeader) {
      expect(pubConn.health().outages.length).toBe(1);
      expect(pubConn.health().node).not.toContain(port(li));
    }
  } finally {
    await c.stop().catch(() => {});
    await publisher.close();
    await pubConn.close();
    if (killed) await startBrokerNode(leader, s);
    await purgeAll(broker, WORK_QUEUE).catch(() => {});
    await broker.close();
  }
}

describe("broker node failure", () => {
  it("the work queue's leader killed while consuming: the consumer moves to another node, no confirmed message lost, the gap reported", async () => {
    await leaderKillScenario("failover-consumer", false);
  }, 240_000);

  it("the leader killed under both consumer and publisher: unconfirmed publishes fail, publishing resumes on another node, every confirmed message applied once", async () => {
    await leaderKillScenario("failover-both", true);
  }, 240_000);

  it("the leader stopped gracefully (CONNECTION_FORCED, seen only on the close event): same recovery, every confirmed message applied once", async () => {
    await leaderKillScenario("failover-stop", true, "stop");
  }, 240_000);
});

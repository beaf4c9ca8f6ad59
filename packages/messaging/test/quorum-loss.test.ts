import { amqpUrls, killBrokerNode, leaderOf, openStack, startWholeBroker, waitFor } from "@orderflow/infra";
import { afterAll, describe, expect, it } from "vitest";
import {
  createBrokerConnection,
  createConfirmPublisher,
  type MessagingError,
  publishEvent,
} from "../src/index.ts";
import { openAdminBroker, purgeAll } from "./helpers/broker.ts";
import { WORK_QUEUE } from "./helpers/consumer.ts";
import { buildOrderCreated } from "./helpers/factories.ts";

const s = openStack();
const N = s.layout.rabbitmq.nodes.length;
let killedAny = false;

afterAll(async () => {
  if (killedAny) await startWholeBroker(s);
  const b = await openAdminBroker(s);
  await purgeAll(b, WORK_QUEUE);
  await b.close();
}, 240_000);

const envelope = (id: string) => ({
  messageId: id,
  type: "order.created",
  schemaVersion: 1,
  correlationId: id,
  causationId: id,
});

describe("quorum lost", () => {
  it("with 2 of 3 nodes down the broker is silent: publishes fail by confirm timeout or in-flight cap, never hang, and succeed again once the nodes return", async () => {
    const leader = await leaderOf(s.rabbit, WORK_QUEUE);
    const survivor = (s.layout.rabbitmq.nodes.findIndex((n) => n.name === leader) + 1) % N;
    const urls = amqpUrls(s);
    const conn = createBrokerConnection({ urls: [urls[survivor] as string], name: "quorum-loss" });
    const publisher = createConfirmPublisher(conn, { confirmTimeoutMs: 3_000, maxInFlight: 5 });
    try {
      await publishEvent(publisher, envelope(`ql-before-${Date.now()}`), buildOrderCreated());
      for (const [i, n] of s.layout.rabbitmq.nodes.entries()) {
        if (i === survivor) continue;
        killedAny = true;
        await killBrokerNode(n.name, s);
      }
      const t0 = Date.now();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          publishEvent(publisher, envelope(`ql-${i}-${t0}`), buildOrderCreated()).then(
            () => "confirmed",
            (e: MessagingError) => e.code,
          ),
        ),
      );
      const elapsed = Date.now() - t0;
      console.log(
        `quorum lost: ${JSON.stringify(results)} after ${elapsed} ms; ${`in flight ${publisher.inFlight()}`}`,
      );
      expect(results.every((r) => r !== "confirmed")).toBe(true);
      expect(results.filter((r) => r === "CONFIRM_TIMEOUT").length).toBeGreaterThanOrEqual(1);
      expect(elapsed).toBeLessThan(8_000);
      expect(publisher.inFlight()).toBe(0);

      const restart = Date.now();
      await startWholeBroker(s);
      killedAny = false;
      const nodesBack = Date.now() - restart;
      // Confirms come back some seconds after the nodes (shared notes: ~15 s).
      await waitFor(
        "a confirmed publish after recovery",
        () =>
          publishEvent(publisher, envelope(`ql-after-${Date.now()}`), buildOrderCreated()).then(
            () => true,
            () => false,
          ),
        { timeoutMs: 90_000, intervalMs: 1_000 },
      );
      console.log(`quorum back: nodes up after ${nodesBack} ms, confirms after ${Date.now() - restart} ms`);
      expect(results.some((r) => r === "IN_FLIGHT_FULL" || r === "CONFIRM_TIMEOUT")).toBe(true);
    } finally {
      await publisher.close();
      await conn.close();
    }
  }, 240_000);
});

import { amqpUrls, openStack } from "@orderflow/infra";
import { afterAll, describe, expect, it } from "vitest";
import {
  assertRetention,
  assertTopology,
  consumerRequirements,
  createBrokerConnection,
  MessagingError,
} from "../src/index.ts";

const s = openStack();

describe("start-up checks", () => {
  const conn = createBrokerConnection({ urls: amqpUrls(s, "inventory"), name: "startup-checks" });
  afterAll(() => conn.close());

  it("passes for the consumer topology of inventory.order-events, checked passively as inventory-svc", async () => {
    await assertTopology(conn, consumerRequirements("inventory.order-events"));
  });

  it("names every missing queue and exchange", async () => {
    const err = await assertTopology(conn, {
      queues: ["inventory.order-events", "inventory.nope"],
      exchanges: ["orderflow.retry", "orderflow.nowhere"],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MessagingError);
    expect((err as MessagingError).code).toBe("TOPOLOGY_MISSING");
    expect((err as Error).message).toMatch(/queue "inventory\.nope"/);
    expect((err as Error).message).toMatch(/exchange "orderflow\.nowhere"/);
    expect((err as Error).message).not.toMatch(/queue "inventory\.order-events"/);
    // The connection survives the failed passive checks (each had its own channel).
    await assertTopology(conn, consumerRequirements("inventory.order-events"));
  });

  it("refuses an inbox retention shorter than the redelivery horizon", () => {
    const cfg = { relayMaxBackoffMs: 60_000, reconciliationPeriodMs: 3_600_000 };
    expect(() => assertRetention({ ...cfg, retentionMs: 3_600_000 }, ["1s", "5s", "30s"])).toThrow(
      /must exceed the redelivery horizon 3696000 ms/,
    );
    expect(() => assertRetention({ ...cfg, retentionMs: 24 * 3_600_000 }, ["1s", "5s", "30s"])).not.toThrow();
  });

  it("reports a connection that cannot be made", async () => {
    const bad = createBrokerConnection({ urls: ["amqp://nobody:x@127.0.0.1:1/orderflow"], name: "bad" });
    await expect(bad.ready(1_000)).rejects.toMatchObject({ code: "NOT_CONNECTED" });
    await bad.close();
  });
});

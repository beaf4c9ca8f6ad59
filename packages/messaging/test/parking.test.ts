import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { amqpUrls, waitFor } from "@orderflow/infra";
import { describe, expect, it } from "vitest";
import {
  createBrokerConnection,
  type Handlers,
  PARK_HEADERS,
  PoisonMessageError,
  parkingQueue,
  redrive,
} from "../src/index.ts";
import { startTestConsumer, WORK_QUEUE } from "./helpers/consumer.ts";
import { recordEffect } from "./helpers/db.ts";
import { buildOrderCreated } from "./helpers/factories.ts";
import { consumerSuite } from "./helpers/suite.ts";

const suite = consumerSuite("parking");
const { s, running } = suite;
const PARKING = parkingQueue(WORK_QUEUE);

const headers = (extra: Record<string, unknown> = {}) => ({
  "x-schema-version": 1,
  "x-correlation-id": "corr",
  "x-causation-id": "cause",
  ...extra,
});

describe("parking lot", () => {
  it("parks malformed JSON, unknown type, future version, missing id, invalid payload and an unhandled type with the reason, then goes on", async () => {
    const c = await startTestConsumer(s, suite.db, { consumerName: "parking" });
    running.push(c);
    const base = { contentType: "application/json", type: "order.created" };
    await suite.broker.publishRaw("order.created", "{not json", {
      ...base,
      messageId: "bad-json",
      headers: headers(),
    });
    await suite.broker.publishRaw("order.created", JSON.stringify(buildOrderCreated()), {
      ...base,
      type: "order.teleported",
      messageId: "bad-type",
      headers: headers(),
    });
    await suite.broker.publishRaw("order.created", JSON.stringify(buildOrderCreated()), {
      ...base,
      messageId: "bad-version",
      headers: headers({ "x-schema-version": 2 }),
    });
    await suite.broker.publishRaw("order.created", JSON.stringify(buildOrderCreated()), {
      ...base,
      headers: headers(),
    });
    await suite.broker.publishRaw("order.created", JSON.stringify({ ...buildOrderCreated(), extra: true }), {
      ...base,
      messageId: "bad-payload",
      headers: headers(),
    });
    // A valid contract this consumer has no handler for.
    await suite.broker.publishRaw("order.created", JSON.stringify({ orderId: "o-9" }), {
      ...base,
      type: "inventory.released",
      messageId: "no-handler",
      headers: headers(),
    });
    const good = buildOrderCreated();
    const goodId = await suite.broker.publishEvent("order.created", good);

    await waitFor("seven outcomes", () => c.outcomes.length >= 7);
    // Deliveries settle concurrently (a parking waits for its confirm), so outcomes need not keep the
    // publish order: the good message is applied, once, whatever came before it.
    expect(c.outcomes.filter((o) => o.kind === "done")).toEqual([
      expect.objectContaining({ kind: "done", messageId: goodId }),
    ]);
    expect((await suite.db.effects()).map((e) => e.message_id)).toEqual([goodId]);

    const parked = await waitFor("six parked messages", async () => {
      const n = (await suite.broker.ch.checkQueue(PARKING)).messageCount;
      return n >= 6 ? suite.broker.drain(PARKING) : undefined;
    });
    const reasons = Object.fromEntries(
      parked.map((m) => [m.properties.messageId ?? "(none)", m.properties.headers?.[PARK_HEADERS.reason]]),
    );
    expect(reasons).toEqual({
      "bad-json": "malformed-json",
      "bad-type": "unknown-type",
      "bad-version": "unsupported-version",
      "(none)": "missing-message-id",
      "bad-payload": "invalid-payload",
      "no-handler": "no-handler",
    });
    for (const m of parked) {
      const h = m.properties.headers ?? {};
      expect(h[PARK_HEADERS.queue]).toBe(WORK_QUEUE);
      expect(Date.parse(String(h[PARK_HEADERS.at]))).toBeGreaterThan(Date.now() - 60_000);
      expect(String(h[PARK_HEADERS.detail]).length).toBeGreaterThan(0);
    }
    // The body is kept as it arrived, so a fixed consumer can take it back.
    expect(parked.find((m) => m.properties.messageId === "bad-json")?.content.toString()).toBe("{not json");
  });

  it("a poison message parked by its handler is redriven by id (function) and by the CLI, then applied once", async () => {
    let broken = true;
    const handlers: Handlers = {
      "order.created": async (ev, tx) => {
        if (broken) throw new PoisonMessageError("bad sku mapping");
        await recordEffect(tx, "redrive", ev.envelope.messageId, ev.payload.orderId);
      },
    };
    const c = await startTestConsumer(s, suite.db, { consumerName: "redrive", handlers });
    running.push(c);
    const first = await suite.broker.publishEvent("order.created", buildOrderCreated());
    const second = await suite.broker.publishEvent("order.created", buildOrderCreated());
    await waitFor("both parked", () => c.outcomes.filter((o) => o.kind === "parked").length === 2);
    expect(c.outcomes[0]).toMatchObject({ kind: "parked", reason: "poison" });
    await waitFor(
      "parking lot holds 2",
      async () => (await suite.broker.ch.checkQueue(PARKING)).messageCount === 2,
    );

    broken = false;
    const admin = createBrokerConnection({ urls: amqpUrls(s), name: "redrive-test" });
    try {
      const r = await redrive(admin, WORK_QUEUE, { messageIds: [first] });
      expect(r).toEqual({ moved: [first], kept: 1 });
    } finally {
      await admin.close();
    }
    await waitFor("first applied", async () =>
      (await suite.db.effects()).some((e) => e.message_id === first),
    );

    const { stdout } = await promisify(execFile)(
      "pnpm",
      ["exec", "tsx", "packages/messaging/src/cli.ts", "redrive", WORK_QUEUE],
      {
        cwd: new URL("../../..", import.meta.url).pathname,
        env: { ...process.env, MESSAGING_AMQP_URLS: amqpUrls(s).join(",") },
      },
    );
    expect(JSON.parse(stdout.trim().split("\n").at(-1) as string)).toMatchObject({
      moved: 1,
      messageIds: [second],
    });
    await waitFor("second applied", async () =>
      (await suite.db.effects()).some((e) => e.message_id === second),
    );
    const effects = (await suite.db.effects()).filter((e) => e.consumer === "redrive");
    expect(effects.map((e) => e.message_id).sort()).toEqual([first, second].sort());
  });
});

// A retry tier is a quorum queue whose messages dead-letter back to the work queue when their TTL
// runs out (at-least-once dead-lettering). A message waiting there when the whole broker stops must
// still come back after the restart, and be applied once: nothing else would ever deliver it again.
import { startWholeBroker, stopWholeBroker, waitFor } from "@orderflow/infra";
import { describe, expect, it } from "vitest";
import { type Handlers, TransientError } from "../src/index.ts";
import { openAdminBroker } from "./helpers/broker.ts";
import { startTestConsumer, WORK_QUEUE } from "./helpers/consumer.ts";
import { recordEffect } from "./helpers/db.ts";
import { buildOrderCreated } from "./helpers/factories.ts";
import { consumerSuite } from "./helpers/suite.ts";

const suite = consumerSuite("retry-restart");
const { s, running } = suite;

describe("retry tiers across a whole-broker restart", () => {
  it("a message waiting in the 30 s tier while all three nodes stop and start comes back and is applied once", async () => {
    const attempts: { attempt: number; xDeath: string[] }[] = [];
    const handlers: Handlers = {
      "order.created": async (ev, tx) => {
        const xDeath = ((ev.headers["x-death"] ?? []) as Record<string, unknown>[]).map(
          (d) => `${String(d.queue)}:${String(d.reason)}:${Number(d.count)}`,
        );
        attempts.push({ attempt: ev.attempt, xDeath });
        if (ev.attempt === 0) throw new TransientError("database unavailable");
        await recordEffect(tx, "retry-restart", ev.envelope.messageId, ev.payload.orderId);
      },
    };
    const c = await startTestConsumer(s, suite.db, {
      consumerName: "retry-restart",
      handlers,
      retrySchedule: ["30s"],
    });
    running.push(c);
    const id = await suite.broker.publishEvent("order.created", buildOrderCreated());
    await waitFor("sent to the 30 s tier", () => c.outcomes.some((o) => o.kind === "retried"));
    expect(c.outcomes[0]).toMatchObject({ kind: "retried", tier: "30s" });

    let restarted = false;
    try {
      await stopWholeBroker(s);
      await startWholeBroker(s);
      restarted = true;
    } finally {
      // Whatever failed, the next test finds a broker.
      if (!restarted) await startWholeBroker(s).catch(() => {});
      // The restart closed the suite's admin connection: its cleanup purges through a new one.
      await suite.broker.close();
      suite.broker = await openAdminBroker(s);
    }

    await waitFor("applied after the restart", () => c.outcomes.some((o) => o.kind === "done"), {
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    expect(attempts.map((a) => a.attempt)).toEqual([0, 1]);
    expect(attempts[1]?.xDeath).toEqual([`${WORK_QUEUE}.retry.30s:expired:1`]);
    expect((await suite.db.effects()).filter((e) => e.message_id === id)).toHaveLength(1);
  }, 300_000);
});

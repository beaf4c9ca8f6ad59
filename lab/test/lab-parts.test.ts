// dlx-cycle's and auto-ack's parts are plain functions over the consumer's Settle seam: what they change,
// checked without a broker (the fault lab runs them for real against the stack).

import { silentLogger } from "@orderflow/logging";
import { ATTEMPT_HEADER, type Delivery, type RetryPlan, type Settle } from "@orderflow/messaging";
import type { Channel, ConsumeMessage } from "amqplib";
import { describe, expect, test } from "vitest";
import { ackOnArrival } from "../src/pitfalls/ack-on-arrival.ts";
import { cycleDeadLetters } from "../src/pitfalls/cycle-dead-letters.ts";

function recordingSettle() {
  const calls: { kind: string; plan?: RetryPlan }[] = [];
  const own: Settle = {
    received: () => calls.push({ kind: "received" }),
    ack: () => calls.push({ kind: "ack" }),
    requeue: () => calls.push({ kind: "requeue" }),
    park: async () => {
      calls.push({ kind: "park" });
    },
    retry: async (_d, plan) => {
      calls.push({ kind: "retry", plan });
    },
  };
  return { own, calls };
}

const delivery = (headers: Record<string, unknown>) =>
  ({ msg: { properties: { messageId: "m-1", type: "order.created", headers } } }) as unknown as Delivery;

describe("dlx-cycle's settle", () => {
  test("a parking becomes a lap through the 1 s tier, one attempt more each time", async () => {
    const { own, calls } = recordingSettle();
    await cycleDeadLetters(own).park(delivery({ [ATTEMPT_HEADER]: 3 }), "poison", "bad json");
    expect(calls).toEqual([
      {
        kind: "retry",
        plan: {
          type: "order.created",
          messageId: "m-1",
          tier: "1s",
          attempt: 4,
          error: "poison: bad json",
          infrastructure: false,
        },
      },
    ]);
  });

  test("acks and requeues are left as they are", async () => {
    const { own, calls } = recordingSettle();
    const s = cycleDeadLetters(own);
    s.ack(delivery({}));
    s.requeue(delivery({}), "x");
    expect(calls.map((c) => c.kind)).toEqual(["ack", "requeue"]);
  });
});

describe("auto-ack's settle", () => {
  const ch = {} as Channel;
  const msg = { properties: { messageId: "m-1" }, fields: { deliveryTag: 1 } } as unknown as ConsumeMessage;

  test("a delivery is acked as it arrives, before any handler runs", () => {
    const { own, calls } = recordingSettle();
    ackOnArrival(own).received(ch, msg);
    expect(calls.map((c) => c.kind)).toEqual(["received", "ack"]);
  });

  test("a requeue gives nothing back: the broker already forgot the message", () => {
    const { own, calls } = recordingSettle();
    ackOnArrival(own).requeue({ ch, msg, log: silentLogger }, "handler failed");
    expect(calls).toEqual([]);
  });
});

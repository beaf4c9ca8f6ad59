// batchStep (src/steps.ts): a set-based step applies one event as a batch of one, and a call whose
// events share a key (two replies about one order) as rounds of distinct keys, in order.
import type { EventPayload } from "@orderflow/contracts";
import type { InboundEvent } from "@orderflow/messaging";
import { describe, expect, it } from "vitest";
import { batchStep, type StepEvent } from "../src/index.ts";

type Granted = StepEvent<"points.granted">;

const granted = (orderId: string, points: number): Granted =>
  ({
    type: "points.granted",
    version: 1,
    payload: { orderId, customerId: "c-1", points } as EventPayload<"points.granted">,
    envelope: { messageId: `m-${orderId}-${points}` },
    attempt: 0,
    redelivered: false,
    headers: {},
    contentHash: "",
  }) as unknown as InboundEvent<EventPayload<"points.granted">> & { type: "points.granted" };

const noOutbox = { enqueue: async () => "", markDone: async () => {} };

describe("batchStep", () => {
  it("splits a call whose events share a key into rounds of distinct keys, in delivery order", async () => {
    const calls: string[][] = [];
    const step = batchStep<"points.granted", null>(
      (e) => e.payload.orderId,
      async (events) => {
        calls.push(events.map((e) => `${e.payload.orderId}:${e.payload.points}`));
        return events.map((e) => (e.payload.points < 0 ? { rejected: "negative" } : undefined));
      },
    );
    const events = [granted("a", 1), granted("b", 2), granted("a", 3), granted("a", -4), granted("c", 5)];
    const results = await step.many(events, { tx: null, each: () => noOutbox });
    expect(calls).toEqual([["a:1", "b:2", "c:5"], ["a:3"], ["a:-4"]]);
    // Each result lands at its own event's place, whichever round applied it.
    expect(results).toEqual([undefined, undefined, undefined, { rejected: "negative" }, undefined]);
  });

  it("each(i) of a round is the context of the event it applies", async () => {
    const marked: string[] = [];
    const step = batchStep<"points.granted", null>(
      (e) => e.payload.orderId,
      async (events, { each }) => {
        for (const [i, e] of events.entries()) await each(i).markDone(e.envelope.messageId);
        return events.map(() => undefined);
      },
    );
    const events = [granted("a", 1), granted("a", 2), granted("b", 3)];
    await step.many(events, {
      tx: null,
      each: (i) => ({ ...noOutbox, markDone: async (id) => void marked.push(`${i}:${id}`) }),
    });
    expect(marked).toEqual(["0:m-a-1", "2:m-b-3", "1:m-a-2"]);
  });

  it("as a plain step, applies one event with the step's own context", async () => {
    const seen: unknown[] = [];
    const step = batchStep<"points.granted", string>(
      (e) => e.payload.orderId,
      async (events, { tx, each }) => {
        seen.push(tx, events.length, await each(0).enqueue({} as never));
        return [{ rejected: "no" }];
      },
    );
    const r = await step(granted("a", 1), {
      tx: "tx-1",
      enqueue: async () => "id-1",
      markDone: async () => {},
    });
    expect(r).toEqual({ rejected: "no" });
    expect(seen).toEqual(["tx-1", 1, "id-1"]);
  });
});

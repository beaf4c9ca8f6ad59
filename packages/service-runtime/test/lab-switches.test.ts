// The fault lab's switches: off unless the lab sets them, refused when misspelt, and each pitfall maps
// to exactly the consumer protection it removes.
import type { InboundEvent } from "@orderflow/messaging";
import { describe, expect, test } from "vitest";
import { labConsumerPitfalls, NO_LAB, readLabSwitches } from "../src/lab.ts";

const event = (payload: unknown) => ({ payload, envelope: { messageId: "m-1" } }) as unknown as InboundEvent;

describe("lab switches", () => {
  test("are off when the lab sets nothing", () => {
    expect(readLabSwitches({})).toEqual(NO_LAB);
    expect(labConsumerPitfalls(NO_LAB)).toBeUndefined();
  });

  test("refuse an unknown pitfall or a rollback rate outside 0..1", () => {
    expect(() => readLabSwitches({ ORDERFLOW_LAB_PITFALL: "auto-ack-typo" })).toThrow(/must be one of/);
    expect(() => readLabSwitches({ ORDERFLOW_LAB_ROLLBACK_RATE: "2" })).toThrow(/between 0 and 1/);
  });

  test("dedup-by-business-id keys the inbox on the order id, falling back to the message id", () => {
    const lab = labConsumerPitfalls(readLabSwitches({ ORDERFLOW_LAB_PITFALL: "dedup-by-business-id" }));
    expect(lab?.dedupKey?.(event({ orderId: "o-7" }))).toBe("o-7");
    expect(lab?.dedupKey?.(event({}))).toBe("m-1");
  });

  test("no-consumer-dedup drops the inbox and auto-ack consumes with noAck", () => {
    expect(labConsumerPitfalls(readLabSwitches({ ORDERFLOW_LAB_PITFALL: "no-consumer-dedup" }))).toEqual({
      inbox: false,
    });
    expect(labConsumerPitfalls(readLabSwitches({ ORDERFLOW_LAB_PITFALL: "auto-ack" }))).toEqual({
      autoAck: true,
    });
  });

  test("relay and order pitfalls leave the consumer alone", () => {
    for (const p of ["no-claim-cas", "publish-before-commit"])
      expect(labConsumerPitfalls(readLabSwitches({ ORDERFLOW_LAB_PITFALL: p }))).toBeUndefined();
  });
});

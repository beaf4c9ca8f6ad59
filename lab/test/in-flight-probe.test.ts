// The in-flight probe against the running stack: each part answers, and the orders it counts are only
// those of the run's own prefix.
import { openStack } from "@orderflow/infra";
import { afterAll, describe, expect, it } from "vitest";
import { startInFlightProbe } from "../src/run/in-flight.ts";
import { WORK_QUEUES } from "../src/run/sampler.ts";

const stack = openStack(undefined, false);
const probe = startInFlightProbe(stack, `probe-${Date.now().toString(36)}-none-`, () => 1_234);

describe("in-flight probe", () => {
  afterAll(() => probe.close());

  it("reads every work queue, every outbox and the run's orders, and sums the messages", async () => {
    const m = await probe.measure("test action");
    expect(m).toMatchObject({ atMs: 1_234, action: "test action", complete: true, ordersPending: 0 });
    expect(Object.keys(m.queues ?? {}).sort()).toEqual([...WORK_QUEUES].sort());
    expect(Object.keys(m.outboxPending).sort()).toEqual(["inventory", "order", "points"]);
    const sum =
      Object.values(m.queues ?? {}).reduce((a, b) => a + b, 0) +
      Object.values(m.outboxPending).reduce<number>((a, b) => a + (b ?? 0), 0);
    expect(m.messages).toBe(sum);
  });
});

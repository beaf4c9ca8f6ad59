import { describe, expect, test } from "vitest";
import { type ConfigResult, LOAD_GENERATOR, sagaRows, sagaSummary } from "../src/saga-report.ts";
import type { StepResult } from "../src/saga-step.ts";
import { latency } from "../src/stats.ts";

const step = (rate: number, keptUp: boolean, finalMs: number[] = [10, 20, 30]): StepResult => ({
  rate,
  seconds: 4,
  sent: rate * 4,
  ok: rate * 4,
  httpErrors: 0,
  dropped: 0,
  final: rate * 4,
  keptUp,
  drainSeconds: 0.5,
  httpMs: latency([5]),
  finalMs: latency(finalMs),
});

function config(
  key: ConfigResult["key"],
  sustained: number,
  cpu: Record<string, number> | null,
): ConfigResult {
  const steps = [step(sustained, true), step(sustained * 2, false)];
  return {
    key,
    label: key === "defaults" ? "defaults" : "one message per transaction",
    variant: key === "defaults" ? {} : { env: { CONSUMER_BATCH_SIZE: "1" } },
    rates: [10, 20, 40],
    stepSeconds: 4,
    steps,
    sustained,
    keptUpAtEveryStep: false,
    half: cpu && {
      rate: sustained / 2,
      seconds: 6,
      settleSeconds: 2,
      autovacuums: 0,
      step: step(sustained / 2, true, [100, 200, 900]),
      cpuMsPerOrder: cpu,
      stackCpuMsPerOrder: Object.values(cpu).reduce((a, b) => a + b, 0),
      besideCpuMsPerOrder: { [LOAD_GENERATOR]: 0.4, prometheus: 0.2 },
      cpuSeconds: {},
      hops: [{ hop: "POST tx + order.created waiting in outbox until confirmed", ms: latency([3, 4]) }],
    },
  };
}

describe("the saga's figures", () => {
  const baseline = config("baseline", 40, { postgres: 20, rabbitmq: 25, "order service": 15 });
  const defaults = config("defaults", 200, { postgres: 6, rabbitmq: 8, "order service": 4 });

  test("bench.json's saga object: the four goal figures from the defaults, the baseline's sustained beside", () => {
    const s = sagaSummary(baseline, defaults);
    expect(s.sustainedOrdersPerSecond).toBe(200);
    expect(s.baselineSustainedOrdersPerSecond).toBe(40);
    expect(s.cpuMsPerOrder).toBe(18);
    expect(s.finalLatencyP99Ms).toBe(900);
    expect(s.sustainedRatio).toBe(5);
    expect(s.halfRate).toBe(100);
    expect(s.baseline.cpuMsPerOrder).toBe(60);
    expect(s.baseline.halfRate).toBe(20);
    expect(s.ladder).toEqual([
      { rate: 200, keptUp: true },
      { rate: 400, keptUp: false },
    ]);
  });

  test("the load generator and monitoring are reported beside the stack's CPU, not in it", () => {
    const s = sagaSummary(baseline, defaults);
    expect(s.cpuMsPerOrderByProcess).toEqual({ postgres: 6, rabbitmq: 8, "order service": 4 });
    expect(s.notInCpuMsPerOrder).toEqual({ [LOAD_GENERATOR]: 0.4, prometheus: 0.2 });
  });

  test("a configuration that kept up nowhere gives sustained 0 and no figures (null in JSON)", () => {
    const s = sagaSummary(config("baseline", 0, null), defaults);
    expect(s.baselineSustainedOrdersPerSecond).toBe(0);
    expect(Number.isNaN(s.sustainedRatio)).toBe(true);
    expect(JSON.parse(JSON.stringify(s)).baseline.cpuMsPerOrder).toBeNull();
  });

  test("the table shows both configurations and their ratio", () => {
    const rows = sagaRows(baseline, defaults, 6, { cores: 2 });
    expect(rows[0]?.result).toBe("200 / 40 orders/s");
    expect(rows[1]?.result).toBe("5.0x");
    expect(rows.find((r) => r.measure.startsWith("CPU per order of the stack"))?.result).toBe(
      "18.0 / 60.0 ms",
    );
    expect(rows.find((r) => r.measure.includes("rabbitmq"))?.result).toBe("8.0 / 25.0 ms");
    expect(
      rows.some((r) => r.measure.includes(LOAD_GENERATOR) && r.measure.includes("not in the stack's")),
    ).toBe(true);
    expect(rows.find((r) => r.measure.includes("monitoring"))?.result).toBe("0.2 / 0.2 ms");
  });

  test("a ratio with a missing side reads n/a, and the ladder row says who fell behind at once", () => {
    const rows = sagaRows(config("baseline", 0, null), defaults, 6, { cores: 2 });
    expect(rows[0]?.result).toBe("200 / 0 orders/s");
    expect(rows[1]?.result).toBe("n/a");
    expect(rows[0]?.note).toContain("1 per tx fell behind at the lowest step");
  });
});

import { describe, expect, test } from "vitest";
import { type ConfigResult, LOAD_GENERATOR, replicaRows, sagaRows, sagaSummary } from "../src/saga-report.ts";
import type { StepResult } from "../src/saga-step.ts";
import { latency } from "../src/stats.ts";
import { stepCpu } from "../src/step-cpu.ts";

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
  // Steps of 10 s on 2 cores (20 CPU seconds): the stack used 2 and 16 of them, the machine was busy 12 and
  // 19; 100 and then 30 context switches per order.
  const steps = [
    { ...step(sustained, true), cpu: stepCpu(2, 12, 20, 10, sustained * 4, sustained * 400) },
    { ...step(sustained * 2, false), cpu: stepCpu(16, 19, 20, 10, sustained * 8, sustained * 240) },
  ];
  return {
    key,
    label: key === "defaults" ? "defaults" : "one message per transaction",
    variant: key === "baseline" ? { env: { CONSUMER_BATCH_SIZE: "1" } } : {},
    replicas: key === "replicas" ? 2 : 1,
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
      repeats: [
        { final: sustained * 2, finalMs: latency([100, 200]), stackCpuMsPerOrder: 17, autovacuums: 0 },
        { final: sustained, finalMs: latency([900]), stackCpuMsPerOrder: 20, autovacuums: 1 },
      ],
      cpuMsPerOrder: cpu,
      stackCpuMsPerOrder: Object.values(cpu).reduce((a, b) => a + b, 0),
      besideCpuMsPerOrder: { [LOAD_GENERATOR]: 0.4, prometheus: 0.2 },
      cpuSeconds: {},
      switchesPerOrder: { rabbitmq: 60, postgres: 30 },
      runQueueWaitMsPerOrder: { rabbitmq: 40, postgres: 14 },
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
      {
        rate: 200,
        keptUp: true,
        stackCpuMsPerOrder: 2.5,
        stackCores: 0.2,
        machineBusy: 0.6,
        stackSwitchesPerOrder: 100,
      },
      {
        rate: 400,
        keptUp: false,
        stackCpuMsPerOrder: 10,
        stackCores: 1.6,
        machineBusy: 0.95,
        stackSwitchesPerOrder: 30,
      },
    ]);
  });

  test("with --replicas, bench.json gives the run with N of each beside the run with one, and their ratio", () => {
    const two = config("replicas", 300, { postgres: 7, rabbitmq: 8, "order service": 6 });
    expect(sagaSummary(baseline, defaults).replicas).toBeUndefined();
    expect(sagaSummary(baseline, defaults, two).replicas).toMatchObject({
      count: 2,
      sustainedOrdersPerSecond: 300,
      sustainedOverOne: 1.5,
      cpuMsPerOrder: 21,
    });
    const [sustained, cpu] = replicaRows(defaults, two);
    expect(sustained?.result).toBe("300 / 200 orders/s");
    expect(sustained?.note).toMatch(/^1\.5x/);
    expect(cpu?.result).toBe("21.0 / 18.0 ms");
  });

  test("the half-rate figures pool the runs; bench.json and the table give each run's own beside them", () => {
    const s = sagaSummary(baseline, defaults);
    expect(s.finalLatencyP99Ms).toBe(900);
    expect(s.halfRateRuns).toEqual([
      { final: 400, finalLatencyP50Ms: 100, finalLatencyP99Ms: 200, cpuMsPerOrder: 17, autovacuums: 0 },
      { final: 200, finalLatencyP50Ms: 900, finalLatencyP99Ms: 900, cpuMsPerOrder: 20, autovacuums: 1 },
    ]);
    const row = sagaRows(baseline, defaults, 6, { cores: 2 }).find((r) =>
      r.measure.startsWith("order written -> final state, defaults"),
    );
    expect(row?.measure).toContain("2 runs of 6 s pooled");
    expect(row?.result).toBe("200 ms / 900 ms");
    expect(row?.spread).toContain("each run p50 / p99: 100 / 200, 900 / 900 ms");
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

  test("the table gives the stack's context switches per order at half rate, busiest process first", () => {
    const rows = sagaRows(baseline, defaults, 6, { cores: 2 });
    const row = rows.find((r) => r.measure.startsWith("context switches per order"));
    expect(row?.result).toBe("90 / 90");
    expect(row?.spread).toBe("defaults: rabbitmq 60, postgres 30");
    expect(sagaSummary(baseline, defaults).contextSwitchesPerOrderByProcess).toEqual({
      rabbitmq: 60,
      postgres: 30,
    });
  });

  test("the table gives how long the stack's threads waited for a core per order, against its CPU", () => {
    const rows = sagaRows(baseline, defaults, 6, { cores: 2 });
    const row = rows.find((r) => r.measure.startsWith("run-queue wait per order"));
    expect(row?.result).toBe("54.0 / 54.0 ms");
    expect(row?.spread).toBe("defaults: rabbitmq 40.0, postgres 14.0; wait / CPU 3.0x / 0.9x");
    expect(sagaSummary(baseline, defaults).runQueueWaitMsPerOrderByProcess).toEqual({
      rabbitmq: 40,
      postgres: 14,
    });
  });

  test("the table names the first ladder step at which the machine was saturated, each step's CPU beside", () => {
    const rows = sagaRows(baseline, defaults, 6, { cores: 2 });
    const row = rows.find((r) => r.measure.includes("busy or more") && r.measure.endsWith("defaults"));
    expect(row?.result).toBe("400 orders/s");
    expect(row?.spread).toBe(
      "200/s: 2.5 ms/order, 0.20 cores, 60%, 100 switches/order; 400/s: 10.0 ms/order, 1.60 cores, 95%, 30 switches/order",
    );
  });

  test("CPU figures of a step that finished no order, or took no time, are missing rather than zero", () => {
    expect(Number.isNaN(stepCpu(1, 1, 2, 5, 0, 50).stackMsPerOrder)).toBe(true);
    expect(Number.isNaN(stepCpu(1, 1, 2, 5, 0, 50).stackSwitchesPerOrder)).toBe(true);
    expect(Number.isNaN(stepCpu(1, 1, 0, 0, 10, 50).stackCores)).toBe(true);
    expect(Number.isNaN(stepCpu(1, 1, 0, 0, 10, 50).machineBusy)).toBe(true);
  });

  test("a ratio with a missing side reads n/a, and the ladder row says who fell behind at once", () => {
    const rows = sagaRows(config("baseline", 0, null), defaults, 6, { cores: 2 });
    expect(rows[0]?.result).toBe("200 / 0 orders/s");
    expect(rows[1]?.result).toBe("n/a");
    expect(rows[0]?.note).toContain("1 per tx fell behind at the lowest step");
  });
});

import { describe, expect, test } from "vitest";
import { pooledStep, type StepResult } from "../src/saga-step.ts";
import { latency } from "../src/stats.ts";

const run = (over: Partial<StepResult>, finalMs: number[]): StepResult => ({
  rate: 100,
  seconds: 30,
  sent: 3000,
  ok: 3000,
  httpErrors: 0,
  dropped: 0,
  final: finalMs.length,
  keptUp: true,
  drainSeconds: 0.4,
  httpMs: latency([5]),
  finalMs: latency(finalMs),
  ...over,
});

describe("repeated half-rate runs pooled into one result", () => {
  const a = run({}, [100, 110, 120, 130]);
  const b = run({ drainSeconds: 1.5, dropped: 2, keptUp: false }, [400, 900]);
  const pooled = pooledStep([a, b], { httpMs: [5, 6, 7, 80], finalMs: [100, 110, 120, 130, 400, 900] });

  test("counts add up and the latencies are over every order of every run, not a mean of the runs' p99s", () => {
    expect(pooled.sent).toBe(6000);
    expect(pooled.final).toBe(6);
    expect(pooled.dropped).toBe(2);
    expect(pooled.seconds).toBe(60);
    expect(pooled.finalMs).toEqual(latency([100, 110, 120, 130, 400, 900]));
    expect(pooled.httpMs.max).toBe(80);
  });

  test("kept up only when every run kept up; the drain is the longest run's", () => {
    expect(pooled.keptUp).toBe(false);
    expect(pooled.drainSeconds).toBe(1.5);
    expect(pooledStep([a, a], { httpMs: [], finalMs: [] }).keptUp).toBe(true);
  });

  test("no runs is an error, not an empty result", () => {
    expect(() => pooledStep([], { httpMs: [], finalMs: [] })).toThrow(/no runs/);
  });
});

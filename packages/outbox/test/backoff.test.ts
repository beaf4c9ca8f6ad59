import { describe, expect, it } from "vitest";
import { DEFAULT_BACKOFF_MS, nackDeferralMs, nextRetryDelayMs } from "../src/backoff.ts";

describe("retry delays", () => {
  it("a refusal follows the schedule, jittered within its bound, and fails after the last delay", () => {
    expect(nextRetryDelayMs(1, DEFAULT_BACKOFF_MS, 0.2, () => 0.5)).toBe(60_000);
    expect(nextRetryDelayMs(2, DEFAULT_BACKOFF_MS, 0.2, () => 0)).toBe(240_000);
    expect(nextRetryDelayMs(2, DEFAULT_BACKOFF_MS, 0.2, () => 1)).toBe(360_000);
    expect(nextRetryDelayMs(DEFAULT_BACKOFF_MS.length + 1)).toBeUndefined();
  });

  it("a nack waits a quarter of the row's age, at least 1 s and at most 5 min", () => {
    const exact = (age: number) => nackDeferralMs(age, 0.2, () => 0.5);
    expect(exact(0)).toBe(1_000);
    expect(exact(40_000)).toBe(10_000);
    expect(exact(3_600_000)).toBe(300_000);
    expect(nackDeferralMs(40_000, 0.2, () => 0)).toBe(8_000);
    expect(nackDeferralMs(40_000, 0.2, () => 1)).toBe(12_000);
  });
});

import { describe, expect, test } from "vitest";
import { dueBy, intendedAtMs } from "../src/pacing.ts";

describe("open-model pacing", () => {
  test("request i is due i / rate seconds after the start", () => {
    expect(intendedAtMs(0, 600)).toBe(0);
    expect(intendedAtMs(600, 600)).toBe(1000);
    expect(intendedAtMs(3, 10)).toBe(300);
  });

  test("every request whose time has come is due, request 0 at once", () => {
    expect(dueBy(0, 10, 100)).toBe(1);
    expect(dueBy(99.9, 10, 100)).toBe(1);
    expect(dueBy(100, 10, 100)).toBe(2);
    // A timer that fires 50 ms late at 600/s releases the 30 requests it owes at once.
    expect(dueBy(50, 600, 10_000)).toBe(31);
  });

  test("never more than the step's total, nothing before the start or at a rate of zero", () => {
    expect(dueBy(60_000, 600, 4_800)).toBe(4_800);
    expect(dueBy(-1, 600, 4_800)).toBe(0);
    expect(dueBy(1_000, 0, 4_800)).toBe(0);
    expect(dueBy(1_000, 600, 0)).toBe(0);
  });

  test("the due count at each request's own time is that request plus the ones before", () => {
    for (const rate of [7, 125, 600])
      for (let i = 0; i < 2_000; i += 37) expect(dueBy(intendedAtMs(i, rate), rate, 10_000)).toBe(i + 1);
  });
});

import { describe, expect, test } from "vitest";
import { climb, LADDER, ladderText, QUICK_LADDER } from "../src/ladder.ts";

const keepsUpTo = (limit: number) => {
  const tried: number[] = [];
  const step = async (rate: number) => {
    tried.push(rate);
    return { rate, keptUp: rate <= limit };
  };
  return { tried, step };
};

describe("the step ladder", () => {
  test("both ladders climb to 600 orders/s in increasing steps", () => {
    for (const l of [LADDER, QUICK_LADDER]) {
      expect(l.at(-1)).toBe(600);
      expect([...l].sort((a, b) => a - b)).toEqual([...l]);
      expect(new Set(l).size).toBe(l.length);
    }
    expect(QUICK_LADDER.length).toBeLessThan(LADDER.length);
  });

  test("stops at the first step that falls behind; sustained is the step before it", async () => {
    const { tried, step } = keepsUpTo(130);
    const r = await climb(LADDER, step);
    expect(tried).toEqual([10, 20, 40, 60, 80, 100, 125, 150]);
    expect(r.sustained).toBe(125);
    expect(r.keptUpAtEveryStep).toBe(false);
    expect(ladderText(r.steps)).toBe("10:ok 20:ok 40:ok 60:ok 80:ok 100:ok 125:ok 150:behind");
  });

  test("a ladder kept up to its top is a lower bound", async () => {
    const r = await climb(QUICK_LADDER, keepsUpTo(10_000).step);
    expect(r.sustained).toBe(600);
    expect(r.keptUpAtEveryStep).toBe(true);
  });

  test("behind at the first step: sustained 0", async () => {
    const { tried, step } = keepsUpTo(5);
    const r = await climb(LADDER, step);
    expect(tried).toEqual([10]);
    expect(r.sustained).toBe(0);
    expect(r.keptUpAtEveryStep).toBe(false);
  });
});

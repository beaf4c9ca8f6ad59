import { describe, expect, test } from "vitest";
import { latency, median, percentile, ratio, spread } from "../src/stats.ts";

describe("bench statistics", () => {
  test("median of odd and even counts", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  test("nearest-rank percentiles return observed values", () => {
    const v = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100
    expect(percentile(v, 50)).toBe(50);
    expect(percentile(v, 99)).toBe(99);
    expect(percentile(v, 100)).toBe(100);
    expect(percentile(v, 0)).toBe(1);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  test("p99 of a small sample is its maximum", () => {
    expect(latency([5, 1, 9, 3]).p99).toBe(9);
  });

  test("spread keeps median, min and max of repeats", () => {
    expect(spread([10, 30, 20])).toEqual({ median: 20, min: 10, max: 30, n: 3 });
  });

  test("ratio against nothing is NaN, not Infinity", () => {
    expect(ratio(10, 0)).toBeNaN();
    expect(ratio(10, 4)).toBe(2.5);
  });
});

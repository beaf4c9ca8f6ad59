import { describe, expect, test } from "vitest";
import { GROWTH_TOLERANCE, memoryGrowth, type RssSample, slope, TOLERANCE } from "../src/memory-growth.ts";

/** Samples every 5 s over `seconds`, RSS from `mb(t)`. */
const series = (seconds: number, mb: (t: number) => number | null): RssSample[] =>
  Array.from({ length: seconds / 5 + 1 }, (_, k) => ({ t: k * 5, mb: mb(k * 5) }));

describe("memory growth over the second half", () => {
  test("least-squares slope of a line is its slope; of noise around a level, about zero", () => {
    expect(slope([0, 1, 2, 3].map((x) => ({ x, y: 2 * x + 1 })))).toBeCloseTo(2, 10);
    expect(slope([0, 1, 2, 3].map((x) => ({ x, y: x % 2 === 0 ? 100 : 104 })))).toBeCloseTo(0.8, 10);
    expect(slope([{ x: 1, y: 1 }])).toBeNaN();
  });

  test("warm-up growth in the first half does not count; a flat second half is flat", () => {
    const g = memoryGrowth(
      series(300, (t) => (t < 120 ? 80 + t / 3 : 120)),
      300,
    );
    expect(g.startMb).toBe(80);
    expect(g.endMb).toBe(120);
    expect(g.growthMb).toBe(0);
    expect(g.slopeMbPerMin).toBeCloseTo(0, 10);
    expect(g.verdict).toBe("flat");
  });

  test("a GC sawtooth within the tolerance is flat", () => {
    const g = memoryGrowth(
      series(300, (t) => 150 + ((t / 5) % 6) * 2),
      300,
    );
    expect(g.growthMb).toBeLessThanOrEqual(g.toleranceMb);
    expect(g.verdict).toBe("flat");
  });

  test("steady growth of 12 MB/min in the second half is growing (30 MB over its 2.5 minutes)", () => {
    const g = memoryGrowth(
      series(300, (t) => 100 + (t / 60) * 12),
      300,
    );
    expect(g.slopeMbPerMin).toBeCloseTo(12, 6);
    expect(g.growthMb).toBeCloseTo(30, 6);
    expect(g.verdict).toBe("growing");
  });

  test("the tolerances are their floor for small processes, a fraction of RSS for large ones", () => {
    const small = memoryGrowth(
      series(60, () => 100),
      60,
    );
    expect(small.toleranceMb).toBe(TOLERANCE.floorMb);
    expect(small.growthToleranceMb).toBe(GROWTH_TOLERANCE.floorMb);
    const large = memoryGrowth(
      series(60, () => 400),
      60,
    );
    expect(large.toleranceMb).toBeCloseTo(400 * TOLERANCE.fraction, 10);
    expect(large.growthToleranceMb).toBeCloseTo(400 * GROWTH_TOLERANCE.fraction, 10);
  });

  test("the order service's measured sawtooth (a low against a tooth's top) is flat", () => {
    // The order service's RSS at 30 orders/s over 5 minutes (MB, every 5 s), from a bench run here.
    const mb = [
      240, 240, 238, 238, 238, 238, 241, 243, 247, 248, 248, 248, 248, 248, 248, 248, 248, 248, 248, 252, 255,
      256, 256, 256, 240, 240, 240, 241, 245, 249, 249, 249, 249, 249, 253, 260, 269, 274, 279, 280, 283, 284,
      284, 284, 284, 284, 284, 284, 284, 284, 289, 296, 303, 297, 297, 297, 247, 247, 247, 247, 247,
    ];
    const g = memoryGrowth(
      mb.map((v, k) => ({ t: k * 5, mb: v })),
      300,
    );
    expect(g.growthMb).toBeGreaterThan(g.toleranceMb);
    expect(g.growthMb).toBeLessThanOrEqual(g.growthToleranceMb);
    expect(g.verdict).toBe("flat");
  });

  test("growth is the max of the last 30 s against the first sample of the second half", () => {
    const g = memoryGrowth(
      series(300, (t) => (t === 150 ? 100 : t >= 270 && t < 300 ? 140 : 105)),
      300,
    );
    expect(g.secondHalfStartMb).toBe(100);
    expect(g.lastWindowMaxMb).toBe(140);
    expect(g.growthMb).toBe(40);
    expect(g.verdict).toBe("growing");
  });

  test("a process gone at a sample is not judged flat; nor is a run too short to judge", () => {
    expect(
      memoryGrowth(
        series(60, (t) => (t === 40 ? null : 100)),
        60,
      ).verdict,
    ).toBe("restarted");
    expect(
      memoryGrowth(
        series(10, () => 100),
        10,
      ).verdict,
    ).toBe("too few samples");
  });
});

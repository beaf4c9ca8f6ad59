// Whether a process's memory grows under steady load: judged on the run's second half only (the first
// half is warm-up: JIT code, connection pools, V8's heap growing to its working size).
//
// Growth = the max of the last 30 s minus the first sample of the second half; slope = least squares over
// the second half. A Node service's RSS is a sawtooth: V8 lets the old generation fill up to its next
// limit before a mark-compact, then gives pages back, so growth (a low against a high) carries up to a
// tooth's height without any leak: measured at 30 orders/s, points 200 -> 230 MB and order
// 240 -> 303 MB before falling back, 15-25% of RSS. The slope over several teeth is what a leak moves.
// So: flat when the slope projected over the second half stays within max(16 MB, 10% of RSS) and the
// growth within max(32 MB, 25% of RSS). A leak of 2 KB per order at 100 orders/s (12 MB/min, 30 MB over
// the 2.5 minutes of a full run's second half) fails the first for a process of up to 300 MB.

export interface RssSample {
  /** Seconds since the run started. */
  t: number;
  /** VmRSS in MiB; null when the process was gone (or replaced) at that sample. */
  mb: number | null;
}

export type MemoryVerdict = "flat" | "growing" | "restarted" | "too few samples";

export interface MemoryGrowth {
  startMb: number;
  endMb: number;
  maxMb: number;
  secondHalfStartMb: number;
  lastWindowMaxMb: number;
  /** lastWindowMaxMb - secondHalfStartMb. */
  growthMb: number;
  slopeMbPerMin: number;
  /** slopeMbPerMin over the second half's span. */
  projectedMb: number;
  /** For projectedMb. */
  toleranceMb: number;
  /** For growthMb: a sawtooth's tooth. */
  growthToleranceMb: number;
  verdict: MemoryVerdict;
}

export const TOLERANCE = { floorMb: 16, fraction: 0.1 } as const;
export const GROWTH_TOLERANCE = { floorMb: 32, fraction: 0.25 } as const;
export const LAST_WINDOW_S = 30;

/** Least-squares slope of y over x; NaN for fewer than two distinct x. */
export function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    sxy += (p.x - mx) * (p.y - my);
    sxx += (p.x - mx) ** 2;
  }
  return sxx > 0 ? sxy / sxx : Number.NaN;
}

export function memoryGrowth(samples: readonly RssSample[], durationS: number): MemoryGrowth {
  const seen = samples.filter((s): s is { t: number; mb: number } => s.mb !== null);
  const second = seen.filter((s) => s.t >= durationS / 2);
  const last = second.filter((s) => s.t >= durationS - LAST_WINDOW_S);
  const secondHalfStartMb = second[0]?.mb ?? Number.NaN;
  const lastWindowMaxMb = last.length > 0 ? Math.max(...last.map((s) => s.mb)) : Number.NaN;
  const growthMb = lastWindowMaxMb - secondHalfStartMb;
  const slopeMbPerMin = slope(second.map((s) => ({ x: s.t / 60, y: s.mb })));
  const toleranceMb = Math.max(TOLERANCE.floorMb, TOLERANCE.fraction * secondHalfStartMb);
  const growthToleranceMb = Math.max(GROWTH_TOLERANCE.floorMb, GROWTH_TOLERANCE.fraction * secondHalfStartMb);
  const spanMin = second.length > 0 ? ((second.at(-1)?.t ?? 0) - (second[0]?.t ?? 0)) / 60 : 0;
  const projectedMb = slopeMbPerMin * spanMin;
  let verdict: MemoryVerdict;
  if (seen.length < samples.length) verdict = "restarted";
  else if (second.length < 3 || last.length < 1) verdict = "too few samples";
  else verdict = projectedMb <= toleranceMb && growthMb <= growthToleranceMb ? "flat" : "growing";
  return {
    startMb: seen[0]?.mb ?? Number.NaN,
    endMb: seen.at(-1)?.mb ?? Number.NaN,
    maxMb: seen.length > 0 ? Math.max(...seen.map((s) => s.mb)) : Number.NaN,
    secondHalfStartMb,
    lastWindowMaxMb,
    growthMb,
    slopeMbPerMin,
    projectedMb,
    toleranceMb,
    growthToleranceMb,
    verdict,
  };
}

// HdrHistogram over microseconds: exact enough (3 significant digits) and constant memory per second.
import { build, type Histogram } from "hdr-histogram-js";
import type { LatencySummary } from "./result.ts";

export type LatencyHistogram = Histogram;

export function createLatencyHistogram(significantDigits: 2 | 3 = 3): LatencyHistogram {
  // Plain 32-bit counts: "packed" ones are smaller but cost too much CPU per sample at 10k/s.
  // Sized for 100 s and grown on demand; with 2 digits a per-second histogram is about 10 kB.
  return build({
    bitBucketSize: 32,
    numberOfSignificantValueDigits: significantDigits,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 100_000_000,
    autoResize: true,
  });
}

export function recordLatency(h: LatencyHistogram, micros: number): void {
  h.recordValue(Math.max(1, Math.round(micros)));
}

export function summarize(h: LatencyHistogram): LatencySummary | null {
  if (h.totalCount === 0) return null;
  // Percentiles report the top of their bucket, which can exceed the exact max; clamp to it.
  const at = (p: number) => Math.min(h.getValueAtPercentile(p), h.maxValue);
  return {
    count: h.totalCount,
    min: h.minNonZeroValue,
    mean: Math.round(h.mean),
    p50: at(50),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    max: h.maxValue,
  };
}

// Percentiles and summaries. Nearest-rank percentiles: every reported value is one that was observed.

export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** Nearest-rank percentile (p in 0..100) of unsorted values; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return percentileOfSorted(sorted, p);
}

export function percentileOfSorted(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((Math.min(100, Math.max(0, p)) / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)] as number;
}

/** The middle value (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Median and min/max of repeated measurements of the same thing. */
export function spread(values: readonly number[]): Spread {
  return {
    median: median(values),
    min: values.length ? Math.min(...values) : Number.NaN,
    max: values.length ? Math.max(...values) : Number.NaN,
    n: values.length,
  };
}

export interface Latency {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  n: number;
}

export function latency(values: readonly number[]): Latency {
  const s = [...values].sort((a, b) => a - b);
  return {
    p50: percentileOfSorted(s, 50),
    p90: percentileOfSorted(s, 90),
    p99: percentileOfSorted(s, 99),
    max: s.length ? (s[s.length - 1] as number) : Number.NaN,
    n: s.length,
  };
}

/** a / b, guarded: a ratio of nothing is NaN, not Infinity. */
export const ratio = (a: number, b: number): number => (b > 0 && Number.isFinite(a) ? a / b : Number.NaN);

// What the flow reads from one scrape of a service's /metrics: counters, gauges and the buckets of a
// histogram, summed over the labels it does not ask for; and histogram_quantile over two scrapes'
// bucket deltas, as Prometheus computes it (linear inside the bucket).

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Prometheus text format -> samples (comments and malformed lines skipped). */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1] as string] = l[2] as string;
    const value = Number(m[3]);
    if (!Number.isNaN(value)) out.push({ name: m[1] as string, labels, value });
  }
  return out;
}

/** The sum of `name` over the samples whose labels match every given one (a RegExp or an exact value). */
export function sumOf(
  samples: readonly Sample[],
  name: string,
  match: Record<string, string | RegExp> = {},
): number | null {
  let total: number | null = null;
  for (const s of samples) {
    if (s.name !== name) continue;
    const ok = Object.entries(match).every(([k, v]) => {
      const got = s.labels[k] ?? "";
      return typeof v === "string" ? got === v : v.test(got);
    });
    if (ok) total = (total ?? 0) + s.value;
  }
  return total;
}

/** Cumulative bucket counts by upper bound (+Inf as Infinity), summed over every other label. */
export function buckets(samples: readonly Sample[], histogram: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const s of samples) {
    if (s.name !== `${histogram}_bucket` || s.labels.le === undefined) continue;
    const le = s.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(s.labels.le);
    out.set(le, (out.get(le) ?? 0) + s.value);
  }
  return out;
}

/** later - earlier per bucket; a counter that went down (the service restarted) counts from zero. */
export function bucketDelta(later: Map<number, number>, earlier: Map<number, number>): Map<number, number> {
  const reset = [...later].some(([le, n]) => n < (earlier.get(le) ?? 0));
  return new Map([...later].map(([le, n]) => [le, reset ? n : n - (earlier.get(le) ?? 0)]));
}

/**
 * The q-quantile of cumulative buckets, as Prometheus' histogram_quantile: linear within the bucket it
 * falls in; in the +Inf bucket, the highest finite bound. null without observations.
 */
export function quantile(q: number, cumulative: Map<number, number>): number | null {
  const sorted = [...cumulative].sort((a, b) => a[0] - b[0]);
  const total = sorted.at(-1)?.[1] ?? 0;
  if (total <= 0) return null;
  const rank = q * total;
  let prevBound = 0;
  let prevCount = 0;
  for (const [le, count] of sorted) {
    if (count >= rank) {
      if (le === Number.POSITIVE_INFINITY) return prevBound;
      if (count === prevCount) return le;
      return prevBound + ((le - prevBound) * (rank - prevCount)) / (count - prevCount);
    }
    prevBound = le;
    prevCount = count;
  }
  return prevBound;
}

// Counters and histograms for one run, by timeline second. The runner calls these; nothing here
// reads a clock, so the bucketing is easy to test and to reason about.
import { createLatencyHistogram, type LatencyHistogram, recordLatency, summarize } from "./latency.ts";
import {
  emptyStatus,
  type LatencySummary,
  type RunSummary,
  type StatusClass,
  statusClass,
  type TimelineSecond,
} from "./result.ts";

interface SecondBucket {
  offered: number;
  started: number;
  dropped: number;
  completed: number;
  status: Record<StatusClass, number>;
  latency: LatencyHistogram | null;
}

export interface Outcome {
  intendedMs: number;
  finishedMs: number;
  /** null for a transport error, a timeout or an abort. */
  status: number | null;
  interrupted: boolean;
}

/** What the progress line shows for the last whole second. */
export interface LiveSecond {
  second: number;
  offered: number;
  completed: number;
  dropped: number;
  errors: number;
  p99Us: number | null;
}

// Longer runs than this are a mistake in the options; the cap keeps the arrays bounded.
const MAX_SECONDS = 24 * 3600;

const secondOf = (ms: number) => Math.min(MAX_SECONDS, Math.max(0, Math.floor(ms / 1000)));

export function createMetrics() {
  const buckets: SecondBucket[] = [];
  const overall = createLatencyHistogram(3);
  const totals = { offered: 0, started: 0, completed: 0, dropped: 0, interrupted: 0 };
  const status = emptyStatus();
  let failed = 0;
  // Completions by the second they finished, for the live progress line only. Reported seconds are
  // deleted, and without a progress reader only the last few are kept, so this stays tiny.
  const live = new Map<number, { latency: LatencyHistogram; errors: number }>();
  const liveFor = (second: number) => {
    let entry = live.get(second);
    if (!entry) {
      entry = { latency: createLatencyHistogram(2), errors: 0 };
      live.set(second, entry);
      // Keys arrive in (nearly) ascending order, so the first ones are the oldest.
      for (const k of live.keys()) {
        if (live.size <= 4) break;
        live.delete(k);
      }
    }
    return entry;
  };

  function bucket(ms: number): SecondBucket {
    const s = secondOf(ms);
    for (let i = buckets.length; i <= s; i++) {
      buckets.push({
        offered: 0,
        started: 0,
        dropped: 0,
        completed: 0,
        status: emptyStatus(),
        latency: null,
      });
    }
    return buckets[s] as SecondBucket;
  }

  return {
    offered(intendedMs: number): void {
      bucket(intendedMs).offered++;
      totals.offered++;
    },
    started(intendedMs: number): void {
      bucket(intendedMs).started++;
      totals.started++;
    },
    dropped(intendedMs: number): void {
      bucket(intendedMs).dropped++;
      totals.dropped++;
    },
    finished(o: Outcome): void {
      const cls = statusClass(o.status);
      const cohort = bucket(o.intendedMs);
      bucket(o.finishedMs).completed++;
      cohort.status[cls]++;
      status[cls]++;
      totals.completed++;
      if (o.interrupted) totals.interrupted++;
      if (cls === "errors" || cls === "4xx" || cls === "5xx") failed++;
      const liveSecond = liveFor(secondOf(o.finishedMs));
      if (cls === "errors") liveSecond.errors++;
      if (o.status !== null) {
        const micros = (o.finishedMs - o.intendedMs) * 1000;
        cohort.latency ??= createLatencyHistogram(2);
        recordLatency(cohort.latency, micros);
        recordLatency(overall, micros);
        recordLatency(liveSecond.latency, micros);
      }
    },
    /** One whole second for the progress line; forgets the live figures of it and earlier ones. */
    takeSecond(second: number): LiveSecond {
      const b = buckets[second];
      const l = live.get(second);
      for (const k of live.keys()) if (k <= second) live.delete(k);
      return {
        second,
        offered: b?.offered ?? 0,
        completed: b?.completed ?? 0,
        dropped: b?.dropped ?? 0,
        errors: l?.errors ?? 0,
        p99Us:
          l && l.latency.totalCount > 0
            ? Math.min(l.latency.maxValue, l.latency.getValueAtPercentile(99))
            : null,
      };
    },
    timeline(): TimelineSecond[] {
      return buckets.map((b, second) => ({
        second,
        offered: b.offered,
        started: b.started,
        dropped: b.dropped,
        completed: b.completed,
        status: b.status,
        latencyUs: b.latency ? (summarize(b.latency) as LatencySummary) : null,
      }));
    },
    /** Overall latency in ms for thresholds on http_req_duration; undefined without samples. */
    latencyMs(aggregation: string, percentile?: number): number | undefined {
      if (overall.totalCount === 0) return undefined;
      const us =
        aggregation === "avg"
          ? overall.mean
          : aggregation === "min"
            ? overall.minNonZeroValue
            : aggregation === "max"
              ? overall.maxValue
              : Math.min(
                  overall.maxValue,
                  overall.getValueAtPercentile(aggregation === "med" ? 50 : (percentile ?? 50)),
                );
      return us / 1000;
    },
    summary(scheduleMs: number): RunSummary {
      const seconds = Math.max(scheduleMs, 1) / 1000;
      return {
        iterations: { ...totals },
        status: { ...status },
        httpReqFailedRate: totals.completed === 0 ? 0 : failed / totals.completed,
        offeredPerSecond: totals.offered / seconds,
        achievedPerSecond: totals.completed / seconds,
        latencyUs: summarize(overall),
      };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

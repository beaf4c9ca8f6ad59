// The JSON a run writes: read by the report renderer, the summary table and the scenarios' audits.
import type { RunOptions } from "./config.ts";
import type { ThresholdResult } from "./thresholds.ts";

export type StatusClass = "2xx" | "3xx" | "4xx" | "5xx" | "errors";

export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

export interface TimelineSecond {
  /** Seconds since the run started; [second, second + 1). */
  second: number;
  /** Iterations the schedule meant to start in this second. */
  offered: number;
  started: number;
  /** Meant to start while the in-flight cap was reached (k6's dropped_iterations). */
  dropped: number;
  /** Iterations that finished in this second, whenever they were meant to start: the achieved rate. */
  completed: number;
  /**
   * Outcomes and latencies of the iterations MEANT TO START in this second, so a stall shows at the
   * moment it happened (as slow or failed requests) rather than when the late answers arrive.
   */
  status: Record<StatusClass, number>;
  latencyUs: LatencySummary | null;
}

export interface RunEvent {
  /** Milliseconds since the run started. */
  atMs: number;
  name: string;
  detail?: unknown;
}

export interface RunSummary {
  iterations: { offered: number; started: number; completed: number; dropped: number; interrupted: number };
  status: Record<StatusClass, number>;
  /** Share of started iterations that failed: a transport error or a status outside 200-399 (k6's rule). */
  httpReqFailedRate: number;
  offeredPerSecond: number;
  achievedPerSecond: number;
  /** Latency from the intended start, in microseconds, over requests that got a status. */
  latencyUs: LatencySummary | null;
}

export interface RunResult {
  format: "orderflow-load-run/1";
  name: string;
  startedAt: string;
  /** The whole run, including waiting for the last answers; scheduleMs is the schedule alone. */
  durationMs: number;
  scheduleMs: number;
  /** Where it ran (cores, memory, Node, load average), since the figures mean little without it. */
  machine: string;
  options: RunOptions;
  summary: RunSummary;
  timeline: TimelineSecond[];
  events: RunEvent[];
  thresholds: ThresholdResult[];
  passed: boolean;
}

export function emptyStatus(): Record<StatusClass, number> {
  return { "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, errors: 0 };
}

export function statusClass(status: number | null): StatusClass {
  if (status === null || status < 200) return "errors";
  if (status < 300) return "2xx";
  if (status < 400) return "3xx";
  if (status < 500) return "4xx";
  return status < 600 ? "5xx" : "errors";
}

// Run options in k6's vocabulary, and their validation into the plain numbers the runner uses.
import { parseDuration } from "./duration.ts";
import { constantSegments, expectedIterations, type RateSegment, rampingSegments } from "./schedule.ts";

export type Duration = string | number;

export interface ConstantArrivalRate {
  executor: "constant-arrival-rate";
  /** Iterations started per `timeUnit`. */
  rate: number;
  timeUnit?: Duration;
  duration: Duration;
  preAllocatedVUs: number;
  /** The in-flight cap; defaults to preAllocatedVUs. Iterations due while at the cap are dropped. */
  maxVUs?: number;
}

export interface RampingArrivalRate {
  executor: "ramping-arrival-rate";
  startRate?: number;
  timeUnit?: Duration;
  stages: Array<{ target: number; duration: Duration }>;
  preAllocatedVUs: number;
  maxVUs?: number;
}

export interface ConstantVus {
  executor: "constant-vus";
  vus: number;
  duration: Duration;
}

export type ExecutorOptions = ConstantArrivalRate | RampingArrivalRate | ConstantVus;

export interface RunOptions {
  /**
   * Base URL of the system under test, loopback only; or the base URLs of its instances (`pnpm stack up
   * --replicas N`), which the requests are spread over.
   */
  target: string | readonly string[];
  scenario: ExecutorOptions;
  /** k6 thresholds, e.g. { http_req_duration: ["p(99)<2000"] }. */
  thresholds?: Record<string, string[]>;
  /** Per-request timeout (k6's default is 60 s). */
  timeout?: Duration;
  /** How long in-flight requests may finish after the schedule ends before they are aborted. */
  gracefulStop?: Duration;
}

export type Plan =
  | { kind: "arrival-rate"; segments: RateSegment[]; cap: number }
  | { kind: "constant-vus"; vus: number; durationMs: number };

export interface ResolvedOptions {
  /** One or more: the instances requests are spread over. */
  origins: string[];
  plan: Plan;
  timeoutMs: number;
  gracefulStopMs: number;
  /** Connections in the HTTP pool: the in-flight cap, so a stall cannot set off a connection storm. */
  connections: number;
}

// Guards against a typo like 1e6 VUs, or a rate and duration that would schedule more iterations than
// one host could ever send: every loop in the runner is bounded by these.
const MAX_CONCURRENCY = 10_000;
const MAX_ITERATIONS = 50_000_000;

function positiveInt(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_CONCURRENCY) {
    throw new Error(`${what} must be an integer between 1 and ${MAX_CONCURRENCY}, got ${String(value)}`);
  }
  return value;
}

function nonNegative(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new Error(`${what} must be a non-negative number, got ${String(value)}`);
  }
  return value;
}

function loopbackOrigin(target: string): string {
  const url = new URL(target);
  const loopback = ["127.0.0.1", "localhost", "[::1]"];
  if (url.protocol !== "http:" || !loopback.includes(url.hostname)) {
    throw new Error(`target must be http:// on loopback (127.0.0.1, localhost, [::1]); got ${target}`);
  }
  return url.origin;
}

function resolvePlan(s: ExecutorOptions): Plan {
  switch (s.executor) {
    case "constant-arrival-rate": {
      const unit = parseDuration(s.timeUnit ?? "1s", "timeUnit");
      const durationMs = parseDuration(s.duration, "duration");
      const cap = positiveInt(s.maxVUs ?? s.preAllocatedVUs, "maxVUs/preAllocatedVUs");
      return {
        kind: "arrival-rate",
        segments: constantSegments(nonNegative(s.rate, "rate") / unit, durationMs),
        cap,
      };
    }
    case "ramping-arrival-rate": {
      const unit = parseDuration(s.timeUnit ?? "1s", "timeUnit");
      if (!Array.isArray(s.stages) || s.stages.length === 0)
        throw new Error("stages must be a non-empty list");
      const stages = s.stages.map((st, i) => ({
        targetPerMs: nonNegative(st.target, `stages[${i}].target`) / unit,
        durationMs: parseDuration(st.duration, `stages[${i}].duration`),
      }));
      const cap = positiveInt(s.maxVUs ?? s.preAllocatedVUs, "maxVUs/preAllocatedVUs");
      return {
        kind: "arrival-rate",
        segments: rampingSegments(nonNegative(s.startRate ?? 0, "startRate") / unit, stages),
        cap,
      };
    }
    case "constant-vus":
      return {
        kind: "constant-vus",
        vus: positiveInt(s.vus, "vus"),
        durationMs: parseDuration(s.duration, "duration"),
      };
    default:
      throw new Error(`unknown executor ${JSON.stringify((s as { executor?: unknown }).executor)}`);
  }
}

export function resolveOptions(options: RunOptions): ResolvedOptions {
  const plan = resolvePlan(options.scenario);
  if (plan.kind === "arrival-rate" && expectedIterations(plan.segments) > MAX_ITERATIONS) {
    throw new Error(
      `the schedule has more than ${MAX_ITERATIONS} iterations; lower the rate or the duration`,
    );
  }
  const targets = typeof options.target === "string" ? [options.target] : [...options.target];
  if (targets.length === 0) throw new Error("target must name at least one base URL");
  return {
    origins: [...new Set(targets.map(loopbackOrigin))],
    plan,
    timeoutMs: parseDuration(options.timeout ?? "60s", "timeout"),
    gracefulStopMs: parseDuration(options.gracefulStop ?? "30s", "gracefulStop"),
    connections: plan.kind === "arrival-rate" ? plan.cap : plan.vus,
  };
}

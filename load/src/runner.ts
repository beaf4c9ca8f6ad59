// Runs one scenario: schedules iterations (open model for the arrival-rate executors, closed loops for
// constant-vus), sends them, records outcomes, and stops by itself after the schedule plus gracefulStop.
import { performance } from "node:perf_hooks";
import { type Plan, type RunOptions, resolveOptions } from "./config.ts";
import { createHttpSender, type RequestSpec } from "./http.ts";
import { describeMachine } from "./machine.ts";
import { createMetrics, type LiveSecond, type Metrics } from "./metrics.ts";
import type { RunEvent, RunResult } from "./result.ts";
import { intendedOffsets, totalDurationMs } from "./schedule.ts";
import { evaluateThresholds, type MetricValue, parseThresholds } from "./thresholds.ts";

export interface IterationContext {
  /** 0, 1, 2, ... across the whole run. */
  iteration: number;
  /** When the iteration was meant to start, in ms since the run started. */
  intendedMs: number;
}

export type RequestFn = (ctx: IterationContext) => RequestSpec;

export interface SuccessInfo {
  iteration: number;
  request: RequestSpec;
  status: number;
  body: string;
  latencyUs: number;
  /** When it was meant to start and when the answer came, in ms since the run started. */
  intendedMs: number;
  finishedMs: number;
}

export interface Progress extends LiveSecond {
  inFlight: number;
  /** How long the oldest in-flight request has been due: a stall shows here before any answer. */
  oldestInFlightMs: number | null;
}

export interface RunHooks {
  /** Called for every 2xx response with its body (the ledger's hook). */
  onSuccess?: (info: SuccessInfo) => void;
  /** Called once a second with the last whole second. */
  onProgress?: (p: Progress) => void;
}

export interface LoadRun {
  /** Records a timed event on the timeline ("fault injected", "fault healed"). */
  markEvent(name: string, detail?: unknown): RunEvent;
  /** Ends the schedule early; in-flight requests still get gracefulStop to finish. */
  stop(): void;
  readonly inFlight: number;
  result: Promise<RunResult>;
}

export function startLoad(
  name: string,
  options: RunOptions,
  request: RequestFn,
  hooks: RunHooks = {},
): LoadRun {
  const resolved = resolveOptions(options);
  const thresholds = parseThresholds(options.thresholds);
  // Monotonic: a wall-clock step (NTP) must not bend the schedule or the latencies.
  const now = () => performance.now();
  const sender = createHttpSender(resolved.origins, {
    connections: resolved.connections,
    timeoutMs: resolved.timeoutMs,
  });
  const metrics = createMetrics();
  const events: RunEvent[] = [];
  let aborted = false;
  const startedAt = new Date();
  const t0 = now();
  const elapsed = () => now() - t0;
  let inFlight = 0;
  // Iteration -> intended start of every request in flight (at most the cap), for the progress line.
  const waiting = new Map<number, number>();
  let iteration = 0;
  let stopRequested = false;
  let wakeScheduler: (() => void) | null = null;
  // A hook that throws (the ledger could not write) fails the run at the end: a ledger with holes
  // would make the audit report orders as unexpected.
  let hookError: unknown = null;
  // Settled when nothing is in flight: the graceful stop waits on it.
  let idleWaiters: Array<() => void> = [];

  function launch(intendedMs: number): Promise<void> {
    const it = iteration++;
    metrics.started(intendedMs);
    inFlight++;
    waiting.set(it, intendedMs);
    let spec: RequestSpec;
    try {
      spec = request({ iteration: it, intendedMs });
    } catch {
      // A broken request function is an error of this iteration, not of the run.
      inFlight--;
      waiting.delete(it);
      metrics.finished({ intendedMs, finishedMs: elapsed(), status: null, interrupted: false });
      return Promise.resolve();
    }
    const wantBody = hooks.onSuccess !== undefined;
    return sender
      .send(spec, { readBody: (s) => wantBody && s >= 200 && s < 300 })
      .then((answer) => {
        const finishedMs = elapsed();
        const interrupted = answer.status === null && aborted;
        metrics.finished({ intendedMs, finishedMs, status: answer.status, interrupted });
        if (answer.status !== null && answer.status >= 200 && answer.status < 300 && hooks.onSuccess) {
          const latencyUs = Math.round((finishedMs - intendedMs) * 1000);
          hooks.onSuccess({
            iteration: it,
            request: spec,
            status: answer.status,
            body: answer.body ?? "",
            latencyUs,
            intendedMs: Math.round(intendedMs),
            finishedMs: Math.round(finishedMs),
          });
        }
      })
      .catch((err: unknown) => {
        hookError ??= err;
      })
      .finally(() => {
        inFlight--;
        waiting.delete(it);
        if (inFlight === 0) {
          for (const w of idleWaiters) w();
          idleWaiters = [];
        }
      });
  }

  /** Open model: every due iteration starts now or is dropped; nothing waits for earlier ones. */
  async function runArrivalRate(plan: Extract<Plan, { kind: "arrival-rate" }>): Promise<number> {
    const endMs = totalDurationMs(plan.segments);
    const offsets = intendedOffsets(plan.segments);
    let next = offsets.next();
    const startDue = (upToMs: number) => {
      while (!next.done && next.value <= upToMs) {
        const intendedMs = next.value;
        metrics.offered(intendedMs);
        if (inFlight >= plan.cap) metrics.dropped(intendedMs);
        else void launch(intendedMs);
        next = offsets.next();
      }
    };
    while (!stopRequested && elapsed() < endMs) {
      startDue(elapsed());
      const until = next.done ? endMs : Math.min(next.value, endMs);
      // Capped at 1 s so stop() is noticed and the loop's iterations stay bounded by time.
      await sleepOrWake(Math.min(1000, Math.max(0, until - elapsed())));
    }
    if (stopRequested) return Math.min(elapsed(), endMs);
    // A timer that fired late (a busy machine, a GC pause) must not shrink the schedule: whatever was
    // due before the end is offered now, late, and its lateness shows in its latency.
    startDue(endMs);
    return endMs;
  }

  /** Closed model, as k6's constant-vus: each VU sends, waits for the answer, sends again. */
  async function runConstantVus(plan: Extract<Plan, { kind: "constant-vus" }>): Promise<number> {
    const vu = async () => {
      while (!stopRequested && elapsed() < plan.durationMs) {
        const intendedMs = elapsed();
        metrics.offered(intendedMs);
        await launch(intendedMs);
      }
    };
    const loops = Array.from({ length: plan.vus }, vu);
    await Promise.race([Promise.all(loops), stopSignal(plan.durationMs)]);
    return Math.min(elapsed(), plan.durationMs);
  }

  function sleepOrWake(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeScheduler = null;
        resolve();
      }
      wakeScheduler = done;
    });
  }

  async function stopSignal(durationMs: number): Promise<void> {
    while (!stopRequested && elapsed() < durationMs) {
      await sleepOrWake(Math.min(1000, Math.max(0, durationMs - elapsed())));
    }
  }

  async function drain(): Promise<void> {
    if (inFlight === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => idleWaiters.push(resolve)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, resolved.gracefulStopMs);
      }),
    ]);
    clearTimeout(timer);
    if (inFlight > 0) {
      // Past gracefulStop: fail what is left (counted as interrupted errors) and wait for the failures.
      aborted = true;
      const settled = new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        if (inFlight === 0) resolve();
      });
      await sender.close();
      await settled;
    }
  }

  // Tick n reports second n-1 by its number, not by the clock: a timer that fires a little early or
  // late must neither skip a second nor report one twice.
  let progressTick = 0;
  const progress = hooks.onProgress
    ? setInterval(() => {
        const last = metrics.takeSecond(progressTick++);
        let oldest = Number.POSITIVE_INFINITY;
        for (const intended of waiting.values()) oldest = Math.min(oldest, intended);
        const oldestInFlightMs = waiting.size === 0 ? null : Math.round(elapsed() - oldest);
        hooks.onProgress?.({ ...last, inFlight, oldestInFlightMs });
      }, 1000)
    : undefined;

  const result = (async (): Promise<RunResult> => {
    try {
      const plan = resolved.plan;
      const scheduleMs =
        plan.kind === "arrival-rate" ? await runArrivalRate(plan) : await runConstantVus(plan);
      await drain();
      if (hookError !== null)
        throw new Error(`onSuccess hook failed: ${String(hookError)}`, { cause: hookError });
      const durationMs = elapsed();
      const summary = metrics.summary(scheduleMs);
      const value = metricValue(metrics, summary, scheduleMs);
      const thresholdResults = evaluateThresholds(thresholds, value);
      return {
        format: "orderflow-load-run/1",
        name,
        startedAt: startedAt.toISOString(),
        durationMs: Math.round(durationMs),
        scheduleMs: Math.round(scheduleMs),
        machine: describeMachine(),
        options,
        summary,
        timeline: metrics.timeline(),
        events,
        thresholds: thresholdResults,
        passed: thresholdResults.every((t) => t.ok),
      };
    } finally {
      if (progress) clearInterval(progress);
      await sender.close();
    }
  })();

  return {
    markEvent(eventName, detail) {
      const event: RunEvent = {
        atMs: Math.round(elapsed()),
        name: eventName,
        ...(detail === undefined ? {} : { detail }),
      };
      events.push(event);
      return event;
    },
    stop() {
      stopRequested = true;
      wakeScheduler?.();
    },
    get inFlight() {
      return inFlight;
    },
    result,
  };
}

/** startLoad and wait for the result. */
export function runLoad(name: string, options: RunOptions, request: RequestFn, hooks: RunHooks = {}) {
  return startLoad(name, options, request, hooks).result;
}

function metricValue(
  metrics: Metrics,
  summary: ReturnType<Metrics["summary"]>,
  scheduleMs: number,
): MetricValue {
  const perSecond = (n: number) => n / (Math.max(scheduleMs, 1) / 1000);
  const counters: Record<string, number> = {
    http_reqs: summary.iterations.completed,
    iterations: summary.iterations.completed,
    dropped_iterations: summary.iterations.dropped,
  };
  return (metric, aggregation, percentile) => {
    if (metric === "http_req_duration") return metrics.latencyMs(aggregation, percentile);
    if (metric === "http_req_failed") return summary.httpReqFailedRate;
    const count = counters[metric];
    if (count === undefined) return undefined;
    return aggregation === "rate" ? perSecond(count) : count;
  };
}

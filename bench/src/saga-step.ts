// One step of offered load through the saga: POST /orders at a fixed rate for a fixed time (open model,
// bounded in flight), then wait until every accepted order reached its final state or the grace ran out.
//
// Final state (happy path): CONFIRMED with points recorded. The order service confirms on
// inventory.reserved and records the points on points.granted, which points answers to the same
// reservation: two transactions in either order. Latency uses the order database's own timestamps:
// created_at (set when POST /orders starts its transaction) to updated_at (set by the later of the two).
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { type OrderClient, orderBodies } from "./order-client.ts";
import { dueBy, intendedAtMs } from "./pacing.ts";
import { sleep } from "./section.ts";
import { latency } from "./stats.ts";

/**
 * Requests in flight before the next is dropped (and counted): 600/s with ~200 ms answers holds ~120,
 * a stall of ~1 s at 600/s holds 600; beyond that the step has fallen behind anyway.
 */
export const IN_FLIGHT_CAP = 768;
/**
 * A step keeps up when every order was final within this long of being written ("every order
 * final within 5 s"), whatever drain a caller allows (`graceMs`: how long after the step's scheduled end
 * it waits for the last orders). Judging by the step's end alone let a saga running 8 s behind pass an
 * 8 s step; the full ladder's steps are 20 s so a growing backlog shows (saga-bench.ts).
 */
export const GRACE_MS = 5_000;

export interface StepResult {
  rate: number;
  seconds: number;
  sent: number;
  ok: number;
  httpErrors: number;
  dropped: number;
  final: number;
  keptUp: boolean;
  drainSeconds: number;
  httpMs: ReturnType<typeof latency>;
  finalMs: ReturnType<typeof latency>;
}

export interface StepOptions {
  rate: number;
  seconds: number;
  graceMs: number;
  /** Receives the accepted orders' ids (the hop breakdown reads them). */
  orderIds?: string[];
  /** Receives every POST's and every final order's latency (ms), for pooling repeated runs. */
  samples?: StepSamples;
}

export interface StepSamples {
  httpMs: number[];
  finalMs: number[];
}

/** SQL over `orders`: the happy path's final state. */
export const FINAL_ORDER = "status = 'CONFIRMED' AND points_granted IS NOT NULL";

/** The ids among `ids` whose order reached its final state. */
async function finalIds(orderDb: pg.Pool, ids: string[]): Promise<string[]> {
  const r = await orderDb.query<{ id: string }>(
    `SELECT id::text AS id FROM orders WHERE id = ANY($1::uuid[]) AND ${FINAL_ORDER}`,
    [ids],
  );
  return r.rows.map((x) => x.id);
}

/**
 * Polls until every id is final or the deadline passes; asks only about the ids still pending, so the
 * polling (PostgreSQL CPU inside the measured window) shrinks as orders finish. Returns how many remain.
 */
export async function waitUntilFinal(
  orderDb: pg.Pool,
  ids: readonly string[],
  deadline: number,
  intervalMs = 200,
): Promise<number> {
  const pending = new Set(ids);
  const check = async () => {
    if (pending.size > 0) for (const id of await finalIds(orderDb, [...pending])) pending.delete(id);
  };
  await check();
  while (pending.size > 0 && performance.now() < deadline) {
    await sleep(Math.min(intervalMs, deadline - performance.now()));
    await check();
  }
  return pending.size;
}

async function finalLatencies(orderDb: pg.Pool, ids: string[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const r = await orderDb.query<{ ms: number }>(
    `SELECT extract(epoch FROM updated_at - created_at)::float8 * 1000 AS ms
       FROM orders WHERE id = ANY($1::uuid[]) AND ${FINAL_ORDER}`,
    [ids],
  );
  return r.rows.map((x) => x.ms);
}

export async function runStep(client: OrderClient, orderDb: pg.Pool, o: StepOptions): Promise<StepResult> {
  const run = randomUUID().slice(0, 8);
  const bodies = orderBodies(run);
  const ids: string[] = [];
  const http: number[] = [];
  let inFlight = 0;
  let dropped = 0;
  let httpErrors = 0;
  let allAnswered: () => void = () => {};
  const answered = new Promise<void>((r) => {
    allAnswered = r;
  });
  const total = Math.round(o.rate * o.seconds);
  let sending = true;
  const send = (i: number, intended: number) => {
    if (inFlight >= IN_FLIGHT_CAP) {
      dropped++;
      return;
    }
    inFlight++;
    client
      .post(`bench-${run}-${i}`, bodies[i % bodies.length] as Buffer)
      .then((id) => {
        ids.push(id);
        // Measured from the intended send time: a stalled server shows as latency, not as less load.
        http.push(performance.now() - intended);
      })
      .catch(() => {
        httpErrors++;
      })
      .finally(() => {
        inFlight--;
        if (inFlight === 0 && !sending) allAnswered();
      });
  };
  const t0 = performance.now();
  // Bounded: `next` only grows, by every request due at each wake-up, until all `total` were due.
  for (let next = 0; next < total; ) {
    const due = dueBy(performance.now() - t0, o.rate, total);
    for (; next < due; next++) send(next, t0 + intendedAtMs(next, o.rate));
    if (next < total) await sleep(t0 + intendedAtMs(next, o.rate) - performance.now());
  }
  sending = false;
  if (inFlight === 0) allAnswered();
  await answered; // every request has its own timeout, so this ends
  // Measured from the step's scheduled end: slow POST answers count against keeping up as well.
  const scheduledEnd = t0 + o.seconds * 1000;
  const left = await waitUntilFinal(orderDb, ids, Math.max(performance.now(), scheduledEnd + o.graceMs));
  const drainSeconds = (performance.now() - scheduledEnd) / 1000;
  const fin = await finalLatencies(orderDb, ids);
  const finalMs = latency(fin);
  o.orderIds?.push(...ids);
  o.samples?.httpMs.push(...http);
  o.samples?.finalMs.push(...fin);
  return {
    rate: o.rate,
    seconds: o.seconds,
    sent: total - dropped,
    ok: ids.length,
    httpErrors,
    dropped,
    final: fin.length,
    keptUp: left === 0 && httpErrors === 0 && dropped === 0 && finalMs.max <= GRACE_MS,
    drainSeconds,
    httpMs: latency(http),
    finalMs,
  };
}

/**
 * Repeated runs of one step as one result: counts summed, latencies over every sample of every run, kept
 * up only when each run did, the longest drain.
 */
export function pooledStep(runs: readonly StepResult[], samples: StepSamples): StepResult {
  const sum = (f: (s: StepResult) => number) => runs.reduce((a, s) => a + f(s), 0);
  const first = runs[0];
  if (!first) throw new Error("pooledStep: no runs");
  return {
    rate: first.rate,
    seconds: sum((s) => s.seconds),
    sent: sum((s) => s.sent),
    ok: sum((s) => s.ok),
    httpErrors: sum((s) => s.httpErrors),
    dropped: sum((s) => s.dropped),
    final: sum((s) => s.final),
    keptUp: runs.every((s) => s.keptUp),
    drainSeconds: Math.max(...runs.map((s) => s.drainSeconds)),
    httpMs: latency(samples.httpMs),
    finalMs: latency(samples.finalMs),
  };
}

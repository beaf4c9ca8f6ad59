// The two kinds of run every contender of the peers section goes through, against the same scratch
// quorum queue drained by the same plain consumer:
//  - burn-down: a backlog committed at once, the contender started, time until the consumer has every
//    event (or the run's time bound) -> events/s, with the CPU of its processes over that time;
//  - open model: one business transaction per event at a fixed rate, each started at its scheduled time
//    whether or not earlier ones finished; latency = first delivery - commit, one process clock.
import { waitFor } from "@orderflow/infra";
import { cpuDelta, cpuSeconds } from "./cpu.ts";
import type { Contender } from "./peer-contender.ts";
import { commitToDelivery, createTally, lossAndDuplicates, type Tally } from "./peer-tally.ts";
import type { ScratchQueue } from "./scratch-queue.ts";
import { sleep } from "./section.ts";
import { type Latency, latency } from "./stats.ts";

/** Deliveries still on their way when a contender stops are counted before the consumer stops. */
const SETTLE_MS = 500;

export interface RunDeps {
  q: ScratchQueue;
  /** Broker process roots (nodes and epmd). */
  rabbitmqRoots: number[];
}

async function withConsumer<T>(q: ScratchQueue, fn: (tally: Tally) => Promise<T>): Promise<T> {
  const tally = createTally();
  const stop = await q.consume((m) =>
    tally.record(m.properties.messageId as string | undefined, performance.now()),
  );
  try {
    return await fn(tally);
  } finally {
    await stop();
  }
}

/** CPU seconds so far of the bench process (the contender and the consumer), PostgreSQL and the broker. */
function cpuNow(c: Contender, d: RunDeps): Record<string, number> {
  const own = process.cpuUsage();
  return {
    "bench process": (own.user + own.system) / 1e6,
    ...cpuSeconds({ postgres: c.postgresRoots(), rabbitmq: d.rabbitmqRoots }),
  };
}

export interface BurnDown {
  events: number;
  delivered: number;
  seconds: number;
  eventsPerSecond: number;
  /** Whether every event arrived within the time bound. */
  complete: boolean;
  cpuSeconds: Record<string, number>;
  pending: number;
  lost: number;
  duplicated: number;
}

export async function burnDown(c: Contender, events: number, maxMs: number, d: RunDeps): Promise<BurnDown> {
  await c.reset();
  await d.q.purge();
  await c.seedBacklog(events);
  return await withConsumer(d.q, async (tally) => {
    const before = cpuNow(c, d);
    const t0 = performance.now();
    await c.start();
    const complete = await waitFor(`${events} events delivered`, () => tally.distinct >= events, {
      timeoutMs: maxMs,
      intervalMs: 20,
    }).then(
      () => true,
      () => false,
    );
    const seconds = (performance.now() - t0) / 1000;
    const delivered = tally.distinct;
    const cpu = cpuDelta(before, cpuNow(c, d));
    await c.stop();
    await sleep(SETTLE_MS);
    const pending = await c.pending();
    const counts = { committed: events, pending, distinct: tally.distinct, deliveries: tally.deliveries };
    return {
      events,
      delivered,
      seconds,
      eventsPerSecond: delivered / seconds,
      complete,
      cpuSeconds: cpu,
      pending,
      ...lossAndDuplicates(counts),
    };
  });
}

export interface OpenModel {
  rate: number;
  seconds: number;
  achievedRate: number;
  committed: number;
  writeErrors: number;
  delivered: number;
  latency: Latency;
  pending: number;
  lost: number;
  duplicated: number;
}

export async function openModel(
  c: Contender,
  rate: number,
  seconds: number,
  drainMs: number,
  d: RunDeps,
): Promise<OpenModel> {
  await c.reset();
  await d.q.purge();
  return await withConsumer(d.q, async (tally) => {
    await c.start();
    const committedAt = new Map<string, number>();
    const total = Math.round(rate * seconds);
    const writes: Promise<void>[] = [];
    let writeErrors = 0;
    const t0 = performance.now();
    for (let i = 0; i < total; i++) {
      await sleep(t0 + (i * 1000) / rate - performance.now());
      writes.push(
        c.writeOne().then(
          (id) => {
            committedAt.set(id, performance.now());
          },
          () => {
            writeErrors++;
          },
        ),
      );
    }
    await Promise.all(writes);
    const offeredSeconds = (performance.now() - t0) / 1000;
    // Bounded: what is not delivered by then counts as late (Infinity) in the percentiles.
    await waitFor(
      "every committed event delivered",
      () => [...committedAt.keys()].every((id) => tally.firstAt(id) !== undefined),
      {
        timeoutMs: drainMs,
        intervalMs: 50,
      },
    ).catch(() => {});
    const lat = commitToDelivery(committedAt, tally);
    await c.stop();
    await sleep(SETTLE_MS);
    const pending = await c.pending();
    const delivered = lat.filter(Number.isFinite).length;
    return {
      rate,
      seconds,
      achievedRate: committedAt.size / offeredSeconds,
      committed: committedAt.size,
      writeErrors,
      delivered,
      latency: latency(lat),
      pending,
      ...lossAndDuplicates({
        committed: committedAt.size,
        pending,
        distinct: tally.distinct,
        deliveries: tally.deliveries,
      }),
    };
  });
}

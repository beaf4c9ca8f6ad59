// The flow: once a second, what the system is doing (orders accepted and finished per second, latency,
// each outbox's backlog, queue depths, what is up), from the services' /metrics, the broker's
// management API and what is up (the stack's PIDs, or compose's containers: see FlowSources). It ticks only while someone watches (an SSE client, or for a
// minute after a GET), so an idle control service costs nothing; ticks never overlap, and every source
// has a timeout, so a dead part slows nothing down and just shows as down.
import {
  appsStatus,
  infrastructureParts,
  listQueues,
  SERVICE_NAMES,
  type ServiceName,
  type Stack,
  serviceUrlsInUse,
} from "@orderflow/infra";
import type { Fault } from "@orderflow/lab";
import { bucketDelta, buckets, parseMetrics, quantile, type Sample, sumOf } from "./flow-metrics.ts";

export interface OutboxFlow {
  /** Rows waiting for the relay; null when the service did not answer its /metrics. */
  pending: number | null;
  oldestPendingAgeS: number | null;
}

export interface Flow {
  at: string;
  ordersAcceptedPerSecond: number;
  ordersFinalPerSecond: number;
  /** Order written -> final (confirmed or cancelled), over the last 10 s; null when none finished. */
  latencyMs: { p50: number | null; p90: number | null; p99: number | null };
  outbox: Record<ServiceName, OutboxFlow>;
  /** Work and retry queues; while the management API does not answer, the last figures it gave. */
  queues: { name: string; messages: number; consumers: number }[];
  parkingLots: Record<string, number>;
  nodes: { name: string; up: boolean }[];
  services: { name: string; kind: "service" | "relay"; up: boolean }[];
  redis: { up: boolean };
  postgres: { up: boolean };
  faults: Fault[];
  scenario: { id: string; name: string; state: string } | null;
}

export interface FlowSampler {
  /** The latest flow (sampled now if the last one is stale); keeps the sampler ticking for a while. */
  snapshot(): Promise<Flow>;
  /** Calls `fn` with every new flow until the returned function is called. */
  subscribe(fn: (flow: Flow) => void): () => void;
  close(): Promise<void>;
}

/** What is up: the flow's tiles. */
export type PartsStatus = Pick<Flow, "nodes" | "services" | "redis" | "postgres">;

/** Where the flow reads; each backend gives its own (the local stack's below, compose's in docker-backend.ts). */
export interface FlowSources {
  /** Base URL of each service, whose /metrics is scraped. */
  /** Each service's instances (one, or the replicas of `pnpm stack up --replicas N`), read at each tick. */
  serviceUrls: () => Promise<Record<ServiceName, string[]>>;
  listQueues: () => Promise<{ name: string; messages: number; consumers: number }[]>;
  status: () => Promise<PartsStatus>;
}

/** The local stack's sources: its loopback ports, its management API, its PIDs and apps' health. */
export function localFlowSources(s: Stack): FlowSources {
  return {
    serviceUrls: async () => serviceUrlsInUse(s),
    listQueues: () => listQueues(s.rabbit),
    async status() {
      const apps = await appsStatus(s).catch(() => []);
      const parts = new Map(infrastructureParts(s).map((p) => [p.name, p.pid !== undefined]));
      const appUp = new Map(apps.map((a) => [a.name, a.healthy]));
      return {
        nodes: s.layout.rabbitmq.nodes.map((n) => ({ name: short(n.name), up: parts.get(n.name) ?? false })),
        services: SERVICE_NAMES.flatMap((svc) => [
          { name: svc, kind: "service" as const, up: appUp.get(svc) ?? false },
          { name: `relay:${svc}`, kind: "relay" as const, up: appUp.get(`relay:${svc}`) ?? false },
        ]),
        redis: { up: parts.get("redis") ?? false },
        postgres: { up: parts.get("postgres") ?? false },
      };
    },
  };
}

export interface FlowSamplerOptions {
  faults: () => Fault[];
  scenario: () => Flow["scenario"];
  intervalMs?: number;
  /** How long a GET keeps the sampler ticking without an SSE client. */
  keepAliveMs?: number;
  log?: (message: string) => void;
}

/** Latency is read over this window of bucket deltas. */
const LATENCY_WINDOW_MS = 10_000;
const SCRAPE_TIMEOUT_MS = 1_500;

/** Every instance's samples together (their counters add up); null when none answered. */
async function scrapeAll(urls: readonly string[]): Promise<Sample[] | null> {
  const each = (await Promise.all(urls.map(scrape))).filter((m): m is Sample[] => m !== null);
  return each.length === 0 ? null : each.flat();
}

async function scrape(url: string): Promise<Sample[] | null> {
  try {
    const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
    return res.ok ? parseMetrics(await res.text()) : null;
  } catch {
    return null;
  }
}

const ms = (seconds: number | null) => (seconds === null ? null : Math.round(seconds * 10_000) / 10);
const short = (node: string) => node.split("@")[0] as string;

export function createFlowSampler(src: FlowSources, opts: FlowSamplerOptions): FlowSampler {
  const intervalMs = opts.intervalMs ?? 1_000;
  const keepAliveMs = opts.keepAliveMs ?? 60_000;
  const listeners = new Set<(f: Flow) => void>();
  let waiters: ((f: Flow) => void)[] = [];
  let latest: { flow: Flow; atMs: number } | null = null;
  let previous: { atMs: number; accepted: number; final: number } | null = null;
  // The order service's cumulative order_final_seconds buckets of the last ~10 s of ticks.
  let history: { atMs: number; buckets: Map<number, number> }[] = [];
  let lastQueues: Pick<Flow, "queues" | "parkingLots"> = { queues: [], parkingLots: {} };
  // While the status source fails (the engine's socket, say), everything shows down.
  const allDown: PartsStatus = {
    nodes: [1, 2, 3].map((n) => ({ name: `rabbit-${n}`, up: false })),
    services: SERVICE_NAMES.flatMap((svc) => [
      { name: svc, kind: "service" as const, up: false },
      { name: `relay:${svc}`, kind: "relay" as const, up: false },
    ]),
    redis: { up: false },
    postgres: { up: false },
  };
  let aliveUntil = 0;
  let loop: Promise<void> | null = null;
  let closed = false;
  let wake: (() => void) | null = null;

  async function tick(): Promise<Flow> {
    const atMs = Date.now();
    const urls = await src.serviceUrls();
    const [metrics, queues, status] = await Promise.all([
      Promise.all(SERVICE_NAMES.map((svc) => scrapeAll(urls[svc]))),
      src.listQueues().catch(() => null),
      src.status().catch(() => null),
    ]);
    const bySvc = Object.fromEntries(SERVICE_NAMES.map((svc, i) => [svc, metrics[i] ?? null])) as Record<
      ServiceName,
      Sample[] | null
    >;

    const order = bySvc.order;
    let acceptedPerS = 0;
    let finalPerS = 0;
    let latency: Flow["latencyMs"] = { p50: null, p90: null, p99: null };
    if (order) {
      const accepted =
        sumOf(order, "http_request_duration_seconds_count", {
          method: "POST",
          route: "/orders",
          status_code: /^2/,
        }) ?? 0;
      const final = sumOf(order, "order_final_seconds_count") ?? 0;
      if (previous && atMs > previous.atMs) {
        const dt = (atMs - previous.atMs) / 1000;
        // A restarted service counts from zero again: then its whole count is this tick's.
        const d = (now: number, before: number) => (now >= before ? now - before : now);
        acceptedPerS = Math.round((d(accepted, previous.accepted) / dt) * 10) / 10;
        finalPerS = Math.round((d(final, previous.final) / dt) * 10) / 10;
      }
      previous = { atMs, accepted, final };
      const now = buckets(order, "order_final_seconds");
      history = [
        ...history.filter((h) => h.atMs >= atMs - LATENCY_WINDOW_MS - intervalMs / 2),
        { atMs, buckets: now },
      ];
      const oldest = history[0];
      if (oldest && oldest.atMs < atMs) {
        const delta = bucketDelta(now, oldest.buckets);
        latency = {
          p50: ms(quantile(0.5, delta)),
          p90: ms(quantile(0.9, delta)),
          p99: ms(quantile(0.99, delta)),
        };
      }
    } else {
      previous = null;
      history = [];
    }

    if (queues) {
      const work = queues.filter((q) => !q.name.endsWith(".parking"));
      lastQueues = {
        queues: work.map((q) => ({ name: q.name, messages: q.messages, consumers: q.consumers })),
        parkingLots: Object.fromEntries(
          queues.filter((q) => q.name.endsWith(".parking")).map((q) => [q.name, q.messages]),
        ),
      };
    }
    return {
      at: new Date(atMs).toISOString(),
      ordersAcceptedPerSecond: acceptedPerS,
      ordersFinalPerSecond: finalPerS,
      latencyMs: latency,
      outbox: Object.fromEntries(
        SERVICE_NAMES.map((svc) => {
          const m = bySvc[svc];
          return [
            svc,
            {
              pending: m ? (sumOf(m, "outbox_pending") ?? null) : null,
              oldestPendingAgeS: m ? (sumOf(m, "outbox_oldest_pending_age_seconds") ?? null) : null,
            },
          ];
        }),
      ) as Record<ServiceName, OutboxFlow>,
      ...lastQueues,
      ...(status ?? allDown),
      faults: opts.faults(),
      scenario: opts.scenario(),
    };
  }

  const watched = () => listeners.size > 0 || Date.now() < aliveUntil;

  async function run(): Promise<void> {
    while (!closed && (watched() || waiters.length > 0)) {
      const next = Date.now() + intervalMs;
      try {
        const flow = await tick();
        latest = { flow, atMs: Date.now() };
        const ws = waiters;
        waiters = [];
        for (const w of ws) w(flow);
        for (const l of listeners) l(flow);
      } catch (e) {
        opts.log?.(`flow sample failed: ${(e as Error).message}`);
      }
      const wait = next - Date.now();
      if (wait > 0 && !closed)
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, wait);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      wake = null;
    }
    // Idle: forget the deltas, so the first tick after a pause does not average over the pause.
    previous = null;
    history = [];
  }

  const ensureRunning = () => {
    if (!loop && !closed)
      loop = run().finally(() => {
        loop = null;
      });
  };

  return {
    async snapshot() {
      aliveUntil = Date.now() + keepAliveMs;
      if (latest && Date.now() - latest.atMs < intervalMs * 1.5) return latest.flow;
      const next = new Promise<Flow>((resolve) => waiters.push(resolve));
      ensureRunning();
      return next;
    },
    subscribe(fn) {
      listeners.add(fn);
      ensureRunning();
      return () => {
        listeners.delete(fn);
      };
    },
    async close() {
      closed = true;
      listeners.clear();
      wake?.();
      await loop;
      // A GET still waiting gets the last flow there is rather than hanging.
      if (latest) for (const w of waiters) w(latest.flow);
      waiters = [];
    },
  };
}

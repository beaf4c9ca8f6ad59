// After a run: wait (bounded) for the system to settle, then check every order of the ledger across
// the three databases and the broker, and measure what the guarantees absorbed on the way.
import { listQueues, type Stack } from "@orderflow/infra";
import { checkLedger, readModelProblems, type Verdict } from "./check.ts";
import type { RunLedger } from "./ledger.ts";
import { parkingCounts } from "./parking-counts.ts";
import { type Snapshot, takeSnapshot } from "./snapshot.ts";

export interface AuditResult extends Verdict {
  settledAfterMs: number | null;
  parked: Record<string, number>;
  absorbed: Record<string, number>;
  /** Services whose `absorbed` counts are a lower bound: restarted during the run, or unreadable. */
  countersLowerBound?: string[];
}

const settled = (ledger: RunLedger, snap: Snapshot) =>
  ledger.orders.every((o) => {
    const r = snap.orders.get(o.orderId);
    if (!r) return false;
    return (
      (r.status === "CONFIRMED" && r.pointsGranted !== null) ||
      (r.status === "CANCELLED" && r.cancelAcks.length === 0)
    );
  }) &&
  Object.values(snap.outbox).every((rows) => rows.every((x) => x.status === 2)) &&
  // The read model of stock catches up with inventory (its stream is not part of any order's saga).
  readModelProblems(ledger, snap).every((p) => p.problem === "levels applied out of order");

/** A counter family of one /metrics text, summed by one label's value. */
function counters(text: string, name: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const m = line.match(new RegExp(`${label}="([^"]*)"[^}]*\\} ([0-9.e+]+)$`));
    if (m?.[1] !== undefined) out[m[1]] = (out[m[1]] ?? 0) + Number(m[2]);
  }
  return out;
}

/** What one service's counters read, and when its process started (null: its /metrics did not answer). */
export interface ServiceCounters {
  url: string;
  startedAt: number | null;
  counts: Record<string, number>;
}

/**
 * What the guarantees absorbed so far, per service: a service's counters start at zero again when its
 * process restarts, so a run's figures are differences taken service by service (absorbedSince).
 */
export async function absorbedCounters(serviceUrls: string[]): Promise<ServiceCounters[]> {
  return Promise.all(
    serviceUrls.map(async (url) =>
      serviceCounters(
        url,
        await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) }).then(
          (r) => (r.ok ? r.text() : ""),
          () => "",
        ),
      ),
    ),
  );
}

/** One service's reading from its /metrics text ("" when it did not answer). */
export function serviceCounters(url: string, text: string): ServiceCounters {
  const started = text.match(/^process_start_time_seconds(?:\{[^}]*\})? ([0-9.e+]+)$/m)?.[1];
  const outcomes = counters(text, "consumer_messages_total", "outcome");
  const repairs = counters(text, "order_reconciliation_repairs_total", "kind");
  const counts = {
    duplicatesCaughtByInbox:
      (outcomes.duplicate ?? 0) + (outcomes["duplicate-cache"] ?? 0) + (outcomes["duplicate-conflict"] ?? 0),
    // Skipped as duplicates though their body differs from the one applied under the same key (a key that
    // is not the message id, as dedup-by-business-id shows, or a producer reusing ids).
    duplicateConflicts: outcomes["duplicate-conflict"] ?? 0,
    handled: outcomes.done ?? 0,
    businessRejections: outcomes.rejected ?? 0,
    retried: outcomes.retried ?? 0,
    parked: outcomes.parked ?? 0,
    requeued: outcomes.requeued ?? 0,
    reconciliationRepairs: Object.values(repairs).reduce((a, b) => a + b, 0),
  };
  return { url, startedAt: started === undefined ? null : Number(started), counts };
}

/** Every service's counters added up. */
export function counterTotals(services: ServiceCounters[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of services) for (const [k, v] of Object.entries(s.counts)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/**
 * The counts between two readings, service by service, added up. A service that restarted in between
 * (another start time, or a counter that went down) counts from its restart: a lower bound, named in
 * `lowerBounds` with the services that did not answer. Summing first and subtracting after would let
 * one service's restart cancel another's counts (a crash loop read 13 duplicates over 0 handled).
 */
export function absorbedSince(
  before: ServiceCounters[] | undefined,
  now: ServiceCounters[],
): { absorbed: Record<string, number>; lowerBounds: string[] } {
  const lowerBounds: string[] = [];
  const deltas = now.map((n) => {
    if (n.startedAt === null) {
      lowerBounds.push(n.url);
      return { ...n, counts: {} };
    }
    const b = before?.find((x) => x.url === n.url);
    if (!b) return n;
    // A service that did not answer before the run (down) started within it: it counts from its start.
    const restarted =
      b.startedAt !== n.startedAt || Object.entries(n.counts).some(([k, v]) => v < (b.counts[k] ?? 0));
    if (restarted) {
      lowerBounds.push(n.url);
      return n;
    }
    const counts = Object.fromEntries(Object.entries(n.counts).map(([k, v]) => [k, v - (b.counts[k] ?? 0)]));
    return { ...n, counts };
  });
  return { absorbed: counterTotals(deltas), lowerBounds };
}

/** Where an audit reads: the databases (a snapshot of a ledger's orders) and the broker's queues. */
export interface AuditReaders {
  snapshot: (ledger: RunLedger) => Promise<Snapshot>;
  listQueues: () => Promise<{ name: string; messages: number }[]>;
}

export interface AuditOptions {
  settleTimeoutMs: number;
  serviceUrls: string[];
  before?: ServiceCounters[];
}

/** The lab's audit of a local stack: its run's prefix, read as the database admin. */
export function audit(s: Stack, ledger: RunLedger, opts: AuditOptions): Promise<AuditResult> {
  return auditWith(
    {
      snapshot: (l) => takeSnapshot(s, l),
      // Depths from the management API, the parking lots asked of the broker itself (parking-counts.ts).
      listQueues: async () => {
        const [qs, parked] = await Promise.all([listQueues(s.rabbit), parkingCounts(s)]);
        return qs.map((q) => (q.name in parked ? { ...q, messages: parked[q.name] as number } : q));
      },
    },
    ledger,
    opts,
  );
}

/** The audit over any readers (the control service scopes its snapshot by time, and reads compose too). */
export async function auditWith(
  r: AuditReaders,
  ledger: RunLedger,
  opts: AuditOptions,
): Promise<AuditResult> {
  const t0 = Date.now();
  let snap = await r.snapshot(ledger);
  let settledAfterMs: number | null = settled(ledger, snap) ? 0 : null;
  while (settledAfterMs === null && Date.now() - t0 < opts.settleTimeoutMs) {
    await new Promise((res) => setTimeout(res, 1_000));
    snap = await r.snapshot(ledger);
    if (settled(ledger, snap)) settledAfterMs = Date.now() - t0;
  }
  const parked = Object.fromEntries(
    (await r.listQueues()).filter((q) => q.name.endsWith(".parking")).map((q) => [q.name, q.messages]),
  );
  const { absorbed, lowerBounds } = absorbedSince(opts.before, await absorbedCounters(opts.serviceUrls));
  return { ...checkLedger(ledger, snap), settledAfterMs, parked, absorbed, countersLowerBound: lowerBounds };
}

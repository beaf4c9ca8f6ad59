// After a run: wait (bounded) for the system to settle, then check every order of the ledger across
// the three databases and the broker, and measure what the guarantees absorbed on the way.
import { listQueues, type Stack } from "@orderflow/infra";
import { checkLedger, type Verdict } from "./check.ts";
import type { RunLedger } from "./ledger.ts";
import { parkingCounts } from "./parking-counts.ts";
import { type Snapshot, takeSnapshot } from "./snapshot.ts";

export interface AuditResult extends Verdict {
  settledAfterMs: number | null;
  parked: Record<string, number>;
  absorbed: Record<string, number>;
}

const settled = (ledger: RunLedger, snap: Snapshot) =>
  ledger.orders.every((o) => {
    const r = snap.orders.get(o.orderId);
    if (!r) return false;
    return (
      (r.status === "CONFIRMED" && r.pointsGranted !== null) ||
      (r.status === "CANCELLED" && r.cancelAcks.length === 0)
    );
  }) && Object.values(snap.outbox).every((rows) => rows.every((x) => x.status === 2));

/** Sums a Prometheus counter family over every service's /metrics, by one label's value. */
async function counters(urls: string[], name: string, label: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const u of urls) {
    const text = await fetch(`${u}/metrics`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.text(),
      () => "",
    );
    for (const line of text.split("\n")) {
      if (!line.startsWith(`${name}{`)) continue;
      const m = line.match(new RegExp(`${label}="([^"]*)"[^}]*\\} ([0-9.e+]+)$`));
      if (m?.[1] !== undefined) out[m[1]] = (out[m[1]] ?? 0) + Number(m[2]);
    }
  }
  return out;
}

export async function absorbedCounters(serviceUrls: string[]): Promise<Record<string, number>> {
  const outcomes = await counters(serviceUrls, "consumer_messages_total", "outcome");
  const repairs = await counters(serviceUrls, "order_reconciliation_repairs_total", "kind");
  return {
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
}

/** Where an audit reads: the databases (a snapshot of a ledger's orders) and the broker's queues. */
export interface AuditReaders {
  snapshot: (ledger: RunLedger) => Promise<Snapshot>;
  listQueues: () => Promise<{ name: string; messages: number }[]>;
}

export interface AuditOptions {
  settleTimeoutMs: number;
  serviceUrls: string[];
  before?: Record<string, number>;
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
  const now = await absorbedCounters(opts.serviceUrls);
  // A service restarted during the run starts its counters at zero again: these are lower bounds.
  const absorbed = Object.fromEntries(
    Object.entries(now).map(([k, n]) => [k, Math.max(0, n - (opts.before?.[k] ?? 0))]),
  );
  return { ...checkLedger(ledger, snap), settledAfterMs, parked, absorbed };
}

// prom-client metrics on a registry the caller owns. Backlog gauges are read from the database at scrape
// time, not pushed by the relay loop: a stalled or dead relay then shows as a growing oldest-pending age
// instead of a frozen, healthy-looking number.
import type pg from "pg";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { outboxStats } from "./sql/outbox-stats.ts";

/** How a row reached the publisher: right after its transaction's commit, or by the sweep. */
export type RelayPath = "fast-path" | "sweep";

export interface OutboxMetrics {
  /** Rows claimed for a publish, by path. */
  claimed: Counter<"path">;
  /** Rows published, by path and the broker's verdict (confirmed, refused, unavailable). */
  published: Counter<"path" | "outcome">;
  /** Each confirmed publish, from its publish to the broker's confirm. */
  confirmLatency: Histogram;
  sent: Counter;
  refused: Counter;
  failed: Counter;
  redriven: Counter;
  republished: Counter;
  archived: Counter;
  pruned: Counter;
  outages: Counter;
  timeInOutbox: Histogram;
  publishLatency: Histogram;
  confirmWindow: Gauge;
}

/** What the relay counts per publish: claims by path, verdicts, and each message's confirm latency. */
function relayCounts(p: string, registers: Registry[]) {
  return {
    claimed: new Counter({
      name: `${p}claimed_total`,
      help: "Rows claimed for a publish, by path (fast-path: right after the commit; sweep: the relay's loop)",
      labelNames: ["path"],
      registers,
    }),
    published: new Counter({
      name: `${p}published_total`,
      help: "Rows published, by path and the broker's verdict (confirmed, refused, unavailable)",
      labelNames: ["path", "outcome"],
      registers,
    }),
    confirmLatency: new Histogram({
      name: `${p}confirm_seconds`,
      help: "From a row's publish to the broker's confirm (for a quorum queue: replicated to a majority)",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
  };
}

export function createOutboxMetrics(opts: {
  registry: Registry;
  /** Where the backlog gauges read from; omit to register only the counters and histograms. */
  pool?: pg.Pool;
  /** Sent-but-not-done rows older than this count as stale (the reconciliation threshold). */
  staleSentAfterMs?: number;
  prefix?: string;
}): OutboxMetrics {
  const p = opts.prefix ?? "outbox_";
  const registers = [opts.registry];
  if (opts.pool) {
    const pool = opts.pool;
    const staleMs = opts.staleSentAfterMs ?? 5 * 60_000;
    // One query per scrape feeds all five gauges; prom-client calls each gauge's collect, so memoise briefly.
    let last: { at: number; stats: ReturnType<typeof outboxStats> } | undefined;
    const stats = () => {
      if (!last || Date.now() - last.at > 1_000) last = { at: Date.now(), stats: outboxStats(pool, staleMs) };
      return last.stats;
    };
    const gauge = (
      name: string,
      help: string,
      pick: (s: Awaited<ReturnType<typeof outboxStats>>) => number,
    ) =>
      new Gauge({
        name: `${p}${name}`,
        help,
        registers,
        async collect() {
          this.set(pick(await stats()));
        },
      });
    gauge("pending", "Outbox rows waiting to be published (status 0)", (s) => s.pending);
    gauge(
      "oldest_pending_age_seconds",
      "Age of the oldest pending outbox row",
      (s) => s.oldestPendingSeconds,
    );
    gauge("failed_rows", "Outbox rows parked as failed (status 9), waiting for a redrive", (s) => s.failed);
    gauge("stale_sent", "Rows sent but not done after the reconciliation threshold", (s) => s.staleSent);
    gauge(
      "oldest_stale_sent_age_seconds",
      "Age since send of the oldest stale sent row",
      (s) => s.oldestStaleSentSeconds,
    );
  }
  return {
    ...relayCounts(p, registers),
    sent: new Counter({
      name: `${p}sent_total`,
      help: "Rows confirmed by the broker and marked sent",
      registers,
    }),
    refused: new Counter({
      name: `${p}refused_total`,
      help: "Publishes the broker refused (unroutable, nacked, too large)",
      registers,
    }),
    failed: new Counter({
      name: `${p}failed_total`,
      help: "Rows that exhausted their attempts (status 9)",
      registers,
    }),
    redriven: new Counter({ name: `${p}redriven_total`, help: "Failed rows put back to pending", registers }),
    republished: new Counter({
      name: `${p}republished_total`,
      help: "Sent-but-not-done rows republished by reconciliation",
      registers,
    }),
    archived: new Counter({ name: `${p}archived_total`, help: "Done rows moved to the archive", registers }),
    pruned: new Counter({
      name: `${p}archive_pruned_total`,
      help: "Archive rows deleted after retention",
      registers,
    }),
    outages: new Counter({
      name: `${p}broker_unavailable_total`,
      help: "Batches that met no broker answer (rows kept pending behind the health gate)",
      registers,
    }),
    timeInOutbox: new Histogram({
      name: `${p}time_in_outbox_seconds`,
      help: "From the row's commit (created_at) to the broker's confirm",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
      registers,
    }),
    publishLatency: new Histogram({
      name: `${p}publish_batch_seconds`,
      help: "From the first publish of a batch to its last confirm",
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    confirmWindow: new Gauge({
      name: `${p}confirm_window_in_use`,
      help: "Publishes awaiting a confirm",
      registers,
    }),
  };
}

// The relay: gets every committed outbox row to the broker. Two ways in, one way out:
//  - the fast path (`afterCommit(ids)`) publishes one transaction's rows right after its commit;
//  - the sweep claims due rows in bounded batches (what the fast path missed, retries, a dead process's rows).
// Both claim through the same lease, so in the normal path no row is published twice.
import type pg from "pg";
import { DEFAULT_BACKOFF_MS, nextRetryDelayMs } from "./backoff.ts";
import type { ConfirmPublisher, PublishOutcome } from "./confirm-publisher.ts";
import { silentLog } from "./log.ts";
import type { OutboxMetrics } from "./metrics.ts";
import { claimByIds } from "./sql/claim-by-ids.ts";
import { claimDue } from "./sql/claim-due.ts";
import { claimByIdsNaive, claimDueNaive } from "./sql/claim-naive.ts";
import { markSent } from "./sql/mark-sent.ts";
import { recordRefusal } from "./sql/record-refusal.ts";
import { releaseClaims } from "./sql/release-claims.ts";
import { toMessage } from "./to-message.ts";
import type { ClaimedRow, Log } from "./types.ts";

export interface RelayConfig {
  /** Rows per sweep claim (and so per publish window). */
  batchSize: number;
  /** Sweep interval when there is nothing due; the fast path and `wake()` cut it short. */
  pollIntervalMs: number;
  /** How long a claim holds a row; must exceed the publisher's confirm timeout. */
  leaseMs: number;
  /** Delays after each refusal; after the last one the row fails (9). */
  backoffMs: number[];
  backoffJitter: number;
  /** Health gate: after an outage wait this long (doubling up to the max) before trying again. */
  gateMinMs: number;
  gateMaxMs: number;
  /** While the broker has not confirmed anything since an outage, claim only this many rows. */
  probeBatchSize: number;
  /** Concurrent fast-path publishes; beyond this a commit only wakes the sweep. */
  fastPathConcurrency: number;
  /** Event types no reply answers: confirmed means done (2) for them, not sent (1). */
  doneOnConfirm: readonly string[];
  /** Tries for marking a confirmed batch sent (200 ms doubling between tries: ~6 s for 6). */
  dbRetries: number;
  /** FAULT LAB ONLY (pitfall no-claim-cas): claim without lease or lock. Never set otherwise. */
  labNaiveClaim?: boolean;
}

export const DEFAULT_RELAY_CONFIG: RelayConfig = {
  batchSize: 500,
  pollIntervalMs: 1_000,
  leaseMs: 30_000,
  backoffMs: DEFAULT_BACKOFF_MS,
  backoffJitter: 0.2,
  gateMinMs: 1_000,
  gateMaxMs: 15_000,
  probeBatchSize: 20,
  fastPathConcurrency: 4,
  doneOnConfirm: [],
  dbRetries: 6,
};

/** Named fault points for tests: armed by a test or by relay-main's OUTBOX_FAULT. */
export interface RelayFaults {
  /** Runs after the broker answered a batch and before anything is recorded. */
  afterPublish?: (rows: ClaimedRow[], outcomes: PublishOutcome[]) => Promise<void>;
}

export interface Relay {
  start(): void;
  /** Stops claiming, then waits (bounded) for batches in flight to be recorded. Safe to call twice. */
  stop(timeoutMs?: number): Promise<void>;
  /** The after-commit fast path. Never throws; the sweep covers whatever it does not publish. */
  afterCommit(messageIds: string[]): void;
  /** Cuts the sweep's wait short. */
  wake(): void;
  /** One sweep step: claims and publishes one batch; returns how many rows it claimed. */
  sweepOnce(): Promise<number>;
}

export function createRelay(deps: {
  pool: pg.Pool;
  publisher: ConfirmPublisher;
  log?: Log;
  metrics?: OutboxMetrics;
  config?: Partial<RelayConfig>;
  faults?: RelayFaults;
}): Relay {
  const cfg: RelayConfig = { ...DEFAULT_RELAY_CONFIG, ...deps.config };
  const { pool, publisher, metrics, faults } = deps;
  const log = deps.log ?? silentLog;

  let running = false;
  let loopDone: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let fastInFlight = 0;
  const inFlightBatches = new Set<Promise<unknown>>();
  // Health gate state: closed until `gateUntil`; `suspect` until the broker confirms something again.
  let gateUntil = 0;
  let gateDelay = cfg.gateMinMs;
  let suspect = false;

  const gateOpen = () => Date.now() >= gateUntil;

  function closeGate(reason: string, rows: number): void {
    metrics?.outages.inc();
    if (!suspect) log("warn", "relay.broker_unavailable", { reason, rows, retryInMs: gateDelay });
    suspect = true;
    gateUntil = Date.now() + gateDelay;
    gateDelay = Math.min(cfg.gateMaxMs, gateDelay * 2);
  }

  function openGate(): void {
    if (suspect) log("info", "relay.broker_available", {});
    suspect = false;
    gateDelay = cfg.gateMinMs;
  }

  function track<T>(p: Promise<T>): Promise<T> {
    inFlightBatches.add(p);
    void p.finally(() => inFlightBatches.delete(p)).catch(() => {});
    return p;
  }

  async function publishAndRecord(rows: ClaimedRow[], path: "fast" | "sweep"): Promise<void> {
    const started = performance.now();
    const outcomes = await publisher.publishBatch(rows.map(toMessage));
    metrics?.publishLatency.observe((performance.now() - started) / 1000);
    await faults?.afterPublish?.(rows, outcomes);

    const confirmed: ClaimedRow[] = [];
    const unavailable: ClaimedRow[] = [];
    const refused: [ClaimedRow, string][] = [];
    let lastUnavailable = "";
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as ClaimedRow;
      const o = outcomes[i] as PublishOutcome;
      if (o.status === "confirmed") confirmed.push(row);
      else if (o.status === "unavailable") {
        unavailable.push(row);
        lastUnavailable = o.reason;
      } else refused.push([row, o.reason]);
    }
    // Confirmed rows are recorded first: if the database fails later in this function, only rows the
    // broker does not have are left to their lease.
    if (confirmed.length > 0) {
      const now = Date.now();
      // The broker has these: retry the mark through a short database blip rather than leave them to the
      // lease expiry, which would publish them a second time.
      await retryDb("mark_sent", () =>
        markSent(
          pool,
          confirmed.map((r) => r.id),
          cfg.doneOnConfirm,
        ),
      );
      metrics?.sent.inc(confirmed.length);
      for (const r of confirmed) metrics?.timeInOutbox.observe((now - r.createdAt.getTime()) / 1000);
      log("debug", "relay.sent", { path, count: confirmed.length });
      openGate();
    }
    for (const [row, reason] of refused) await refuse(row, reason);
    if (unavailable.length > 0) {
      await releaseClaims(
        pool,
        unavailable.map((r) => r.id),
      );
      closeGate(lastUnavailable, unavailable.length);
    }
  }

  async function retryDb<T>(what: string, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (e) {
        if (attempt >= cfg.dbRetries) throw e;
        log("warn", "relay.db_retry", { what, attempt, error: (e as Error).message });
        await new Promise((r) => setTimeout(r, 200 * 2 ** (attempt - 1)));
      }
    }
  }

  async function refuse(row: ClaimedRow, reason: string): Promise<void> {
    metrics?.refused.inc();
    const failedAttempts = row.attempts + 1;
    const delay = nextRetryDelayMs(failedAttempts, cfg.backoffMs, cfg.backoffJitter);
    const r = await recordRefusal(pool, row.id, reason, delay);
    const fields = {
      messageId: row.messageId,
      correlationId: row.headers.correlationId,
      eventType: row.eventType,
      attempts: failedAttempts,
      error: reason,
    };
    if (r?.status === 9) {
      metrics?.failed.inc();
      log("error", "relay.message_failed", fields);
    } else log("warn", "relay.message_refused", { ...fields, retryInMs: delay });
  }

  // Commits that arrive while every fast-path slot is busy wait here and leave together as one claim and
  // one publish window, so under load the fast path batches instead of publishing row by row.
  const fastQueue: string[] = [];
  function pumpFastPath(): void {
    while (running && fastInFlight < cfg.fastPathConcurrency && fastQueue.length > 0) {
      const ids = fastQueue.splice(0, cfg.batchSize);
      fastInFlight++;
      void track(
        (cfg.labNaiveClaim ? claimByIdsNaive(pool, ids) : claimByIds(pool, ids, cfg.leaseMs)).then((rows) =>
          rows.length > 0 ? publishAndRecord(rows, "fast") : undefined,
        ),
      )
        .catch((e) =>
          log("error", "relay.fast_path_error", { error: (e as Error).message, count: ids.length }),
        )
        .finally(() => {
          fastInFlight--;
          pumpFastPath();
        });
    }
  }

  async function sweepOnce(): Promise<number> {
    const limit = suspect ? Math.min(cfg.probeBatchSize, cfg.batchSize) : cfg.batchSize;
    const rows = cfg.labNaiveClaim
      ? await claimDueNaive(pool, limit)
      : await claimDue(pool, limit, cfg.leaseMs);
    if (rows.length > 0) await track(publishAndRecord(rows, "sweep"));
    return rows.length;
  }

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(done, Math.max(0, ms));
      function done() {
        clearTimeout(t);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  async function loop(): Promise<void> {
    while (running) {
      try {
        if (!gateOpen()) {
          await pause(gateUntil - Date.now());
          continue;
        }
        if (!publisher.isConnected()) {
          // Claiming now would only churn leases; the publisher is already reconnecting.
          await publisher.waitUntilConnected(cfg.pollIntervalMs);
          continue;
        }
        const claimed = await sweepOnce();
        if (claimed < (suspect ? cfg.probeBatchSize : cfg.batchSize)) await pause(cfg.pollIntervalMs);
      } catch (e) {
        log("error", "relay.sweep_error", { error: (e as Error).message });
        await pause(cfg.pollIntervalMs);
      }
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loopDone = loop();
    },
    async stop(timeoutMs = 15_000) {
      running = false;
      wakeUp?.();
      const drained = Promise.all([loopDone, ...inFlightBatches]).catch(() => {});
      await Promise.race([drained, new Promise((r) => setTimeout(r, timeoutMs).unref?.())]);
    },
    afterCommit(messageIds) {
      if (!running || messageIds.length === 0) return;
      if (!gateOpen() || suspect || !publisher.isConnected()) {
        wakeUp?.();
        return;
      }
      // Bounded: past this the rows are just as safe in the table, and the sweep takes them in batches.
      if (fastQueue.length + messageIds.length > cfg.batchSize * 10) {
        wakeUp?.();
        return;
      }
      fastQueue.push(...messageIds);
      pumpFastPath();
    },
    wake: () => wakeUp?.(),
    sweepOnce,
  };
}

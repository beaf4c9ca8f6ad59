// The relay: gets every committed outbox row to the broker. Two ways in, one way out:
//  - the fast path (`afterCommit(ids)`, fast-path.ts) publishes one transaction's rows right after its commit;
//  - the sweep claims due rows in bounded batches (what the fast path missed, retries, a dead process's rows).
// Both claim through the same ClaimStrategy (claim.ts; by default a lease), so in the normal path no row
// is published twice; both publish and record through record-outcomes.ts behind one health gate.
import { type Logger, silentLogger } from "@orderflow/logging";
import type { ConfirmPublisher } from "@orderflow/messaging";
import type pg from "pg";
import { type ClaimStrategy, leasedClaim } from "./claim.ts";
import { coalesced } from "./coalesced.ts";
import { createFastPath } from "./fast-path.ts";
import { createHealthGate } from "./health-gate.ts";
import type { OutboxMetrics } from "./metrics.ts";
import { publishAndRecord, type RelayParts, retryDb } from "./record-outcomes.ts";
import {
  DEFAULT_RELAY_CONFIG,
  firstIds,
  type Relay,
  type RelayConfig,
  type RelayFaults,
} from "./relay-config.ts";
import { markSent } from "./sql/mark-sent.ts";
import { releaseClaims } from "./sql/release-claims.ts";
import type { ClaimedRow } from "./types.ts";

export { DEFAULT_RELAY_CONFIG, type Relay, type RelayConfig, type RelayFaults } from "./relay-config.ts";

export interface RelayDeps {
  pool: pg.Pool;
  publisher: ConfirmPublisher;
  /** Default: silent. */
  log?: Logger;
  metrics?: OutboxMetrics;
  config?: Partial<RelayConfig>;
  /** How rows are claimed. Default: leasedClaim. */
  claim?: ClaimStrategy;
  faults?: RelayFaults;
}

/** A sweep claim's size: a full batch, or a probe's few rows while the gate suspects the broker. */
const claimLimit = (p: RelayParts) =>
  p.gate.suspect() ? Math.min(p.cfg.probeBatchSize, p.cfg.batchSize) : p.cfg.batchSize;

/** One sweep batch, claimed, published and recorded; returns how many rows it claimed. */
async function sweepOnce(p: RelayParts, track: <T>(w: Promise<T>) => Promise<T>): Promise<number> {
  const rows = await p.claim.due(p.pool, claimLimit(p), p.cfg.leaseMs);
  if (rows.length > 0) await track(publishAndRecord(p, rows, "sweep"));
  return rows.length;
}

/**
 * The loop's sweep: claims a batch and starts publishing it, then returns as soon as fewer than
 * `sweepConcurrency` batches are in flight, so the next claim overlaps this batch's confirms. Each batch
 * claims rows no other holds (a lease), and their marks are coalesced. Probing after an outage, one at
 * a time.
 */
function pipelinedSweep(p: RelayParts, track: <T>(w: Promise<T>) => Promise<T>): () => Promise<number> {
  const inFlight = new Set<Promise<void>>();
  return async () => {
    const probing = p.gate.suspect();
    const rows = await p.claim.due(p.pool, claimLimit(p), p.cfg.leaseMs);
    if (rows.length === 0) return 0;
    const work = track(publishAndRecord(p, rows, "sweep")).then(
      () => {},
      (e: unknown) => p.log.error({ error: (e as Error).message }, "relay.sweep_error"),
    );
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
    const max = probing ? 1 : Math.max(1, p.cfg.sweepConcurrency);
    while (inFlight.size >= max) await Promise.race(inFlight);
    return rows.length;
  };
}

/** The sweep loop: waits behind the gate and for a connection, sweeps, pauses when there was little to do. */
async function sweepLoop(
  p: RelayParts,
  sweep: () => Promise<number>,
  running: () => boolean,
  pause: (ms: number) => Promise<void>,
) {
  while (running()) {
    try {
      if (!p.gate.isOpen()) {
        await pause(p.gate.until() - Date.now());
        continue;
      }
      if (!p.publisher.isConnected()) {
        // Claiming now would only churn leases; the publisher is already reconnecting.
        await p.publisher.waitUntilConnected(p.cfg.pollIntervalMs);
        continue;
      }
      const claimed = await sweep();
      if (claimed < claimLimit(p)) await pause(p.cfg.pollIntervalMs);
    } catch (e) {
      p.log.error({ error: (e as Error).message }, "relay.sweep_error");
      await pause(p.cfg.pollIntervalMs);
    }
  }
}

export function createRelay(deps: RelayDeps): Relay {
  const cfg: RelayConfig = { ...DEFAULT_RELAY_CONFIG, ...deps.config };
  const log = deps.log ?? silentLogger;
  let running = false;
  let loopDone: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  const p: RelayParts = {
    pool: deps.pool,
    publisher: deps.publisher,
    log,
    metrics: deps.metrics,
    cfg,
    claim: deps.claim ?? leasedClaim,
    faults: deps.faults,
    gate: createHealthGate(cfg, log, deps.metrics),
    // The broker has these rows: the mark is retried through a short database blip rather than left to
    // the lease expiry, which would publish them a second time.
    marks: coalesced((ids) =>
      retryDb({ cfg, log }, "mark_sent", () => markSent(deps.pool, ids, cfg.doneOnConfirm)),
    ),
    wake: () => wakeUp?.(),
  };
  const inFlightBatches = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inFlightBatches.add(work);
    void work.finally(() => inFlightBatches.delete(work)).catch(() => {});
    return work;
  };
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
  const fastPath = createFastPath(p, () => running, track);
  // Both fast-path doors check the same: running, the gate open and not probing, the publisher connected.
  const fastPathOpen = () => running && p.gate.isOpen() && !p.gate.suspect() && p.publisher.isConnected();
  const sweep = () => sweepOnce(p, track);
  const sweepAhead = pipelinedSweep(p, track);
  // Leased rows nobody will publish now: released, so the sweep takes them at once rather than after
  // the lease. If that fails too, the lease expires and the sweep takes them then.
  const releases = coalesced((ids) => releaseClaims(p.pool, ids));
  const release = (rows: ClaimedRow[]) => {
    if (rows.length === 0) return Promise.resolve();
    return releases
      .run(rows.map((r) => r.id))
      .then(() => wakeUp?.())
      .catch((e) =>
        log.warn(
          { error: (e as Error).message, count: rows.length, messageIds: firstIds(rows) },
          "relay.release_failed",
        ),
      );
  };
  return {
    start() {
      if (running) return;
      running = true;
      loopDone = sweepLoop(p, sweepAhead, () => running, pause);
    },
    async stop(timeoutMs = 15_000) {
      running = false;
      wakeUp?.();
      const released = release(fastPath.takeBackLeased());
      const drained = Promise.all([loopDone, released, ...inFlightBatches]).catch(() => {});
      await Promise.race([drained, new Promise((r) => setTimeout(r, timeoutMs).unref?.())]);
    },
    afterCommit(messageIds) {
      if (!running || messageIds.length === 0) return;
      if (!fastPathOpen() || !fastPath.offer(messageIds)) wakeUp?.();
    },
    insertLeaseMs: p.claim.leaseAtInsert ? cfg.leaseMs : undefined,
    publishLeased(rows) {
      if (rows.length === 0) return;
      if (!fastPathOpen() || !fastPath.offerLeased(rows)) void track(release(rows));
    },
    wake: () => wakeUp?.(),
    sweepOnce: sweep,
  };
}

// Publishing one claimed batch and recording what the broker said about each row:
//  - confirmed: marked sent (or done), retried through a short database blip;
//  - refused: attempts + 1 and a backoff, or failed (9) after the last delay;
//  - nacked (an isolated nack): the queue's state, not the row's fault: no attempt, the row waits a
//    quarter of its age (backoff.ts) and goes again (a run of nacks arrives as unavailable);
//  - unavailable: the lease is released (the row is due again) and the health gate closes: an outage is
//    never the row's fault and costs no attempt.
import type { Logger } from "@orderflow/logging";
import { type ConfirmPublisher, PUBLISH_REASONS, type PublishOutcome } from "@orderflow/messaging";
import type pg from "pg";
import { nackDeferralMs, nextRetryDelayMs } from "./backoff.ts";
import type { ClaimStrategy } from "./claim.ts";
import type { Coalesced } from "./coalesced.ts";
import type { HealthGate } from "./health-gate.ts";
import type { OutboxMetrics, RelayPath } from "./metrics.ts";
import { tracePublish } from "./publish-spans.ts";
import { firstIds, type RelayConfig, type RelayFaults, rowFields } from "./relay-config.ts";
import { recordRefusal } from "./sql/record-refusal.ts";
import { releaseClaims } from "./sql/release-claims.ts";
import { toMessage } from "./to-message.ts";
import type { ClaimedRow } from "./types.ts";

/** What the relay's parts share. */
export interface RelayParts {
  pool: pg.Pool;
  publisher: ConfirmPublisher;
  log: Logger;
  metrics: OutboxMetrics | undefined;
  cfg: RelayConfig;
  claim: ClaimStrategy;
  faults: RelayFaults | undefined;
  gate: HealthGate;
  /** markSent for confirmed rows, coalesced (coalesced.ts); retried through a short database blip. */
  marks: Coalesced;
  /** Cuts the sweep's pause short. */
  wake: () => void;
}

export async function retryDb<T>(
  p: Pick<RelayParts, "cfg" | "log">,
  what: string,
  fn: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= p.cfg.dbRetries) throw e;
      p.log.warn({ what, attempt, error: (e as Error).message }, "relay.db_retry");
      await new Promise((r) => setTimeout(r, 200 * 2 ** (attempt - 1)));
    }
  }
}

async function recordConfirmed(p: RelayParts, confirmed: ClaimedRow[], path: "fast" | "sweep") {
  const now = Date.now();
  await p.marks.run(confirmed.map((r) => r.id));
  p.metrics?.sent.inc(confirmed.length);
  for (const r of confirmed) p.metrics?.timeInOutbox.observe((now - r.createdAt.getTime()) / 1000);
  p.log.debug({ path, count: confirmed.length, messageIds: firstIds(confirmed) }, "relay.sent");
  p.gate.confirmed();
  // The next row of each ordered stream is claimable now that this one is marked: the sweep takes it
  // at once rather than after its pause.
  if (confirmed.some((r) => r.orderingKey !== null)) p.wake();
}

async function refuse(p: RelayParts, row: ClaimedRow, reason: string): Promise<void> {
  p.metrics?.refused.inc();
  const failedAttempts = row.attempts + 1;
  const delay = nextRetryDelayMs(failedAttempts, p.cfg.backoffMs, p.cfg.backoffJitter);
  const r = await recordRefusal(p.pool, row.id, reason, delay);
  const fields = { ...rowFields(row), attempts: failedAttempts, error: reason };
  if (r?.status === 9) {
    p.metrics?.failed.inc();
    p.log.error(fields, "relay.message_failed");
  } else p.log.warn({ ...fields, retryInMs: delay }, "relay.message_refused");
}

/** A nack costs no attempt: each row waits after its own age, so a queue that stays full is not hammered. */
async function deferNacked(p: RelayParts, rows: ClaimedRow[]): Promise<void> {
  const now = Date.now();
  for (const row of rows) {
    p.metrics?.refused.inc();
    await releaseClaims(p.pool, [row.id], nackDeferralMs(now - row.createdAt.getTime()));
  }
  p.log.warn({ count: rows.length, messageIds: firstIds(rows) }, "relay.message_nacked");
}

/** Counts a batch's rows and verdicts (these metrics serve the relay process and the services' fast path). */
function countBatch(p: RelayParts, path: "fast" | "sweep", outcomes: PublishOutcome[]) {
  const m = p.metrics;
  if (!m) return;
  const label: RelayPath = path === "fast" ? "fast-path" : "sweep";
  // Every row a relay publishes was claimed for this publish, just before (fast-path.ts, relay.ts).
  m.claimed.inc({ path: label }, outcomes.length);
  for (const o of outcomes) {
    m.published.inc({ path: label, outcome: o.status });
    if (o.status === "confirmed" && o.confirmSeconds !== undefined)
      m.confirmLatency.observe(o.confirmSeconds);
  }
}

export async function publishAndRecord(p: RelayParts, rows: ClaimedRow[], path: "fast" | "sweep") {
  const started = performance.now();
  const traced = tracePublish(rows, path);
  const outcomes = await p.publisher.publishBatch(traced ? traced.messages : rows.map((r) => toMessage(r)));
  traced?.end(outcomes);
  p.metrics?.publishLatency.observe((performance.now() - started) / 1000);
  countBatch(p, path, outcomes);
  await p.faults?.afterPublish?.(rows, outcomes);

  const confirmed: ClaimedRow[] = [];
  const unavailable: ClaimedRow[] = [];
  const refused: [ClaimedRow, string][] = [];
  const nacked: ClaimedRow[] = [];
  let lastUnavailable = "";
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as ClaimedRow;
    const o = outcomes[i] as PublishOutcome;
    if (o.status === "confirmed") confirmed.push(row);
    else if (o.status === "unavailable") {
      unavailable.push(row);
      lastUnavailable = o.reason;
    } else if (o.reason === PUBLISH_REASONS.nacked) nacked.push(row);
    else refused.push([row, o.reason]);
  }
  // Confirmed rows are recorded first: if the database fails later in this function, only rows the
  // broker does not have are left to their lease.
  if (confirmed.length > 0) await recordConfirmed(p, confirmed, path);
  for (const [row, reason] of refused) await refuse(p, row, reason);
  if (nacked.length > 0) await deferNacked(p, nacked);
  if (unavailable.length > 0) {
    await releaseClaims(
      p.pool,
      unavailable.map((r) => r.id),
    );
    p.gate.close(lastUnavailable, unavailable.length, firstIds(unavailable));
  }
}

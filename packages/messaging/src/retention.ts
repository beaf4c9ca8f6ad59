// Dedup rows must outlive every way the same message can come back: the consumer's retry tiers, the
// outbox relay re-sending after its longest backoff, and the reconciliation job re-emitting lost events.
// A configuration that deletes rows sooner would let a late duplicate through, so it is refused.
import { MessagingError } from "./errors.ts";
import { type RetryTier, TIER_MS } from "./topology.ts";

export interface RetentionConfig {
  /** How long inbox rows (and Redis dedup keys) are kept. */
  retentionMs: number;
  /** Longest delay the outbox relay may wait before re-sending a row. */
  relayMaxBackoffMs: number;
  /** Period of the reconciliation job that may re-emit events. */
  reconciliationPeriodMs: number;
}

export function redeliveryHorizonMs(cfg: RetentionConfig, schedule: readonly RetryTier[]): number {
  const retries = schedule.reduce((sum, t) => sum + TIER_MS[t], 0);
  return retries + cfg.relayMaxBackoffMs + cfg.reconciliationPeriodMs;
}

export function assertRetention(cfg: RetentionConfig, schedule: readonly RetryTier[]): void {
  const horizon = redeliveryHorizonMs(cfg, schedule);
  if (!(cfg.retentionMs > horizon)) {
    throw new MessagingError(
      "RETENTION_TOO_SHORT",
      `inbox retention ${cfg.retentionMs} ms must exceed the redelivery horizon ${horizon} ms ` +
        `(retry tiers ${schedule.join("+")} + relay backoff ${cfg.relayMaxBackoffMs} ms + ` +
        `reconciliation period ${cfg.reconciliationPeriodMs} ms)`,
    );
  }
}

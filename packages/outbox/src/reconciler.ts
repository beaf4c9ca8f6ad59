// Reconciliation: a row sent but never answered (no reply carried its id as causation) may have been
// lost downstream, or our confirm may have covered a message a consumer never processed. Republishing it
// with the SAME message id is safe because consumers deduplicate; it is counted, logged and measured.
import { type Logger, silentLogger } from "@orderflow/logging";
import type { ConfirmPublisher } from "@orderflow/messaging";
import type pg from "pg";
import type { OutboxMetrics } from "./metrics.ts";
import { periodic } from "./periodic.ts";
import { rowFields } from "./relay-config.ts";
import { claimStaleSent } from "./sql/claim-stale-sent.ts";
import { toMessage } from "./to-message.ts";

export interface ReconcilerConfig {
  staleAfterMs: number;
  batchSize: number;
  intervalMs: number;
}

export const DEFAULT_RECONCILER_CONFIG: ReconcilerConfig = {
  staleAfterMs: 5 * 60_000,
  batchSize: 500,
  intervalMs: 60_000,
};

export function createReconciler(deps: {
  pool: pg.Pool;
  publisher: ConfirmPublisher;
  log?: Logger;
  metrics?: OutboxMetrics;
  config?: Partial<ReconcilerConfig>;
}) {
  const cfg = { ...DEFAULT_RECONCILER_CONFIG, ...deps.config };
  const log = deps.log ?? silentLogger;

  /** Republishes one batch of stale sent rows; returns how many the broker confirmed. */
  async function runOnce(): Promise<number> {
    const rows = await claimStaleSent(deps.pool, cfg.staleAfterMs, cfg.batchSize);
    if (rows.length === 0) return 0;
    const outcomes = await deps.publisher.publishBatch(rows.map((r) => toMessage(r)));
    let confirmed = 0;
    rows.forEach((row, i) => {
      const o = outcomes[i];
      const ok = o?.status === "confirmed";
      if (ok) confirmed++;
      const fields = {
        ...rowFields(row),
        ageMs: Math.round(row.ageMs),
        ...(o && o.status !== "confirmed" ? { error: o.reason } : {}),
      };
      if (ok) log.warn(fields, "reconcile.republished");
      else log.error(fields, "reconcile.republish_failed");
    });
    // A row whose republish was not confirmed stays sent; its bumped sent_at makes it due again after
    // the threshold, so an outage during reconciliation only delays it.
    deps.metrics?.republished.inc(confirmed);
    return confirmed;
  }

  let loop: ReturnType<typeof periodic> | undefined;
  return {
    runOnce,
    start() {
      loop ??= periodic("reconcile", cfg.intervalMs, runOnce, log);
    },
    async stop() {
      await loop?.stop();
      loop = undefined;
    },
  };
}

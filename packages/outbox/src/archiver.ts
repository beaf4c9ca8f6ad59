// Keeps the outbox table small: done rows past the retention move to outbox_archive in bounded batches
// (one short statement each, with a pause between so the relay and writers are never starved), and the
// archive is pruned after its own retention. With several relays on one table, one archives at a time
// (an advisory lock); the others skip their turn.
import { pgExclusive } from "@orderflow/db";
import { type Logger, silentLogger } from "@orderflow/logging";
import type pg from "pg";
import type { OutboxMetrics } from "./metrics.ts";
import { periodic } from "./periodic.ts";
import { archiveDoneBatch } from "./sql/archive-done.ts";
import { pruneArchiveBatch } from "./sql/prune-archive.ts";

export interface ArchiverConfig {
  retentionMs: number;
  archiveRetentionMs: number;
  batchSize: number;
  pauseBetweenBatchesMs: number;
  intervalMs: number;
  /** Upper bound on batches per run, so one run cannot go on for hours after a long stop. */
  maxBatchesPerRun: number;
}

const DAY = 24 * 60 * 60_000;
export const DEFAULT_ARCHIVER_CONFIG: ArchiverConfig = {
  retentionMs: 7 * DAY,
  archiveRetentionMs: 30 * DAY,
  batchSize: 1_000,
  pauseBetweenBatchesMs: 50,
  intervalMs: 5 * 60_000,
  maxBatchesPerRun: 1_000,
};

export function createArchiver(deps: {
  pool: pg.Pool;
  log?: Logger;
  metrics?: OutboxMetrics;
  config?: Partial<ArchiverConfig>;
}) {
  const cfg = { ...DEFAULT_ARCHIVER_CONFIG, ...deps.config };
  const log = deps.log ?? silentLogger;
  const pause = () => new Promise((r) => setTimeout(r, cfg.pauseBetweenBatchesMs));

  async function drain(step: () => Promise<number>): Promise<{ rows: number; batches: number }> {
    let rows = 0;
    let batches = 0;
    while (batches < cfg.maxBatchesPerRun) {
      const n = await step();
      rows += n;
      if (n > 0) batches++;
      if (n < cfg.batchSize) break;
      await pause();
    }
    return { rows, batches };
  }

  async function archiveAndPrune() {
    const archived = await drain(() => archiveDoneBatch(deps.pool, cfg.retentionMs, cfg.batchSize));
    const pruned = await drain(() => pruneArchiveBatch(deps.pool, cfg.archiveRetentionMs, cfg.batchSize));
    deps.metrics?.archived.inc(archived.rows);
    deps.metrics?.pruned.inc(pruned.rows);
    if (archived.rows > 0 || pruned.rows > 0)
      log.info(
        {
          archived: archived.rows,
          archiveBatches: archived.batches,
          pruned: pruned.rows,
          pruneBatches: pruned.batches,
        },
        "archive.run",
      );
    return { archived: archived.rows, archiveBatches: archived.batches, pruned: pruned.rows };
  }

  const exclusive = pgExclusive(deps.pool);
  /** One run, unless another relay on this table is archiving now (then `skipped`, and nothing moved). */
  async function runOnce() {
    const r = await exclusive("outbox.archive", archiveAndPrune);
    return r.ran
      ? { ...r.value, skipped: false }
      : { archived: 0, archiveBatches: 0, pruned: 0, skipped: true };
  }

  let loop: ReturnType<typeof periodic> | undefined;
  return {
    runOnce,
    start() {
      loop ??= periodic("archive", cfg.intervalMs, runOnce, log);
    },
    async stop() {
      await loop?.stop();
      loop = undefined;
    },
  };
}

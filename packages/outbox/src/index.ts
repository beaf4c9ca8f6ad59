// @orderflow/outbox: write events in the business transaction, relay them to the broker (README.md lists
// the surface).
import path from "node:path";
import { fileURLToPath } from "node:url";

export { type ArchiverConfig, createArchiver, DEFAULT_ARCHIVER_CONFIG } from "./archiver.ts";
export { DEFAULT_BACKOFF_MS, nextRetryDelayMs } from "./backoff.ts";
export { type ClaimStrategy, leasedClaim } from "./claim.ts";
export { composeRelay, type RelayStrategies } from "./compose-relay.ts";
export {
  enqueue,
  type GatedWrite,
  insertLeasedRows,
  insertOutboxRows,
  insertWithOutboxRows,
  outboxRow,
  unleased,
} from "./enqueue.ts";
export { type OutboxEnv, readOutboxEnv } from "./env.ts";
export { createOutboxMetrics, type OutboxMetrics } from "./metrics.ts";
export { createReconciler, DEFAULT_RECONCILER_CONFIG, type ReconcilerConfig } from "./reconciler.ts";
export { redrive } from "./redrive.ts";
export {
  createRelay,
  DEFAULT_RELAY_CONFIG,
  type Relay,
  type RelayConfig,
  type RelayDeps,
  type RelayFaults,
} from "./relay.ts";
export { RELAY_PUBLISH_CHANNELS, type RelayPublisherFactory } from "./relay-config.ts";
export { createRelayConnection } from "./relay-connection.ts";
export { type RelayProcessParts, runRelayProcess } from "./relay-process.ts";
export { resendMessage } from "./resend.ts";
export { claimPagesProbe } from "./sql/claim-probe.ts";
export { type DoneMark, markDone, markDoneMany } from "./sql/mark-done.ts";
export { type OutboxStats, outboxStats } from "./sql/outbox-stats.ts";
export type { RedriveFilter } from "./sql/redrive.ts";
// For other claim strategies and for tools that read rows and send them as the relay would.
export { CLAIMED_COLUMNS, type ClaimedRecord, toClaimedRow } from "./sql/row.ts";
export { toMessage } from "./to-message.ts";
export { type ClaimedRow, type OutboxEvent, type OutboxRow, OutboxStatus } from "./types.ts";
export { withOutbox } from "./with-outbox.ts";

/** The outbox's Prisma-format migrations folder, for `applyMigrations({ migrationsDirs: [...] })`. */
export const OUTBOX_MIGRATIONS_DIR = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "prisma",
  "migrations",
);

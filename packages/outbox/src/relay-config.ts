// The relay's settings, fault points and interface, apart from its parts so they import them without a cycle.
import type {
  BrokerConnection,
  ConfirmPublisher,
  ConfirmPublisherOptions,
  PublishOutcome,
} from "@orderflow/messaging";
import { DEFAULT_BACKOFF_MS } from "./backoff.ts";
import type { ClaimedRow } from "./types.ts";

export interface RelayConfig {
  /** Rows per sweep claim (and so per publish window). */
  batchSize: number;
  /**
   * Sweep batches in flight at once: while one awaits its confirms the next is claimed and published, so
   * the broker's confirm window stays full through a backlog instead of draining at each batch's end.
   */
  sweepConcurrency: number;
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
}

export const DEFAULT_RELAY_CONFIG: RelayConfig = {
  batchSize: 500,
  sweepConcurrency: 2,
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

/**
 * Confirm channels of the relay process's publisher: a backlog's sweep batches go out on two at once, each
 * channel a broker process of its own; the relay moved a backlog 1.14x faster on two (bench/README).
 */
export const RELAY_PUBLISH_CHANNELS = 2;

/**
 * How a relay gets its publisher: a seam, so a tool can compose a relay with another one. Default:
 * messaging's createConfirmPublisher (a row is sent only once the broker confirmed it).
 */
export type RelayPublisherFactory = (
  conn: BrokerConnection,
  opts: ConfirmPublisherOptions,
) => ConfirmPublisher;

/** Named fault points for tests; never set in services. */
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
  /**
   * How long a writer may lease the rows it inserts for this relay's fast path (insertLeasedRows);
   * undefined when its claim strategy takes more than a lease (the writer hands over ids instead).
   */
  readonly insertLeaseMs: number | undefined;
  /** The after-commit fast path for rows leased at insert. Never throws; what it does not publish is released. */
  publishLeased(rows: ClaimedRow[]): void;
  /** Cuts the sweep's wait short. */
  wake(): void;
  /** One sweep step: claims and publishes one batch; returns how many rows it claimed. */
  sweepOnce(): Promise<number>;
}

/** The first few message ids of a batch, for log lines about many rows. */
export const firstIds = (rows: readonly { messageId: string }[], n = 5) =>
  rows.slice(0, n).map((r) => r.messageId);

/** The fields of every log line about one row. */
export const rowFields = (row: ClaimedRow) => ({
  messageId: row.messageId,
  correlationId: row.headers.correlationId,
  eventType: row.eventType,
});

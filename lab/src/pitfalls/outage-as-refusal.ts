// Pitfall no-backoff: the relay as it is written without exponential backoff and without the health gate.
// Every failed publish counts against the row, an outage included (the broker "refused" it), and it is
// tried again after a fixed short delay; after five tries the row fails (9), as a common naive relay does.
// During an outage the relay keeps claiming, publishing and recording full batches: a retry storm
// against the database, and rows that fail for good though nothing was wrong with them.
// Compare packages/outbox/src/record-outcomes.ts (an outage costs no attempt) and health-gate.ts.
import { createConfirmPublisher, type PublishOutcome } from "@orderflow/messaging";
import type { RelayConfig, RelayPublisherFactory } from "@orderflow/outbox";

/** The confirm publisher, with "unavailable" reported as a refusal and the link always said to be up. */
export const outageAsRefusalPublisher: RelayPublisherFactory = (conn, opts) => {
  const own = createConfirmPublisher(conn, opts);
  return {
    ...own,
    publishBatch: async (messages) =>
      (await own.publishBatch(messages)).map(
        (o): PublishOutcome => (o.status === "unavailable" ? { status: "refused", reason: o.reason } : o),
      ),
    // A naive relay does not wait for the connection: it just tries.
    isConnected: () => true,
    waitUntilConnected: async () => true,
  };
};

/** A fixed half second between tries, five tries (four delays, then failed): no growth, no jitter. */
export const NO_BACKOFF: Partial<RelayConfig> = {
  backoffMs: [500, 500, 500, 500],
  backoffJitter: 0,
};

// A relay over its pool and its broker connection, the same in the relay process and in a service's fast
// path: its publisher (confirms by default) reporting its window to the metrics, and its claim.
import type { Logger } from "@orderflow/logging";
import {
  type BrokerConnection,
  type ConfirmPublisherOptions,
  createConfirmPublisher,
} from "@orderflow/messaging";
import type pg from "pg";
import type { ClaimStrategy } from "./claim.ts";
import type { OutboxMetrics } from "./metrics.ts";
import { createRelay, type RelayConfig, type RelayFaults } from "./relay.ts";
import type { RelayPublisherFactory } from "./relay-config.ts";

/** How a relay claims and publishes; each one left out is the protection (leased claim, confirms). */
export interface RelayStrategies {
  claim?: ClaimStrategy;
  /** Default: the confirm publisher (sent = confirmed by the broker). */
  publisher?: RelayPublisherFactory;
  /** Overrides of the relay's settings on top of the caller's. */
  config?: Partial<RelayConfig>;
}

export function composeRelay(o: {
  pool: pg.Pool;
  connection: BrokerConnection;
  log: Logger;
  metrics: OutboxMetrics;
  config: Partial<RelayConfig>;
  publisherOptions?: ConfirmPublisherOptions;
  strategies?: RelayStrategies;
  faults?: RelayFaults;
}) {
  const { claim, publisher: factory = createConfirmPublisher, config } = o.strategies ?? {};
  const publisher = factory(o.connection, {
    ...o.publisherOptions,
    log: o.log,
    onWindow: (n) => o.metrics.confirmWindow.set(n),
  });
  const relay = createRelay({
    pool: o.pool,
    publisher,
    log: o.log,
    metrics: o.metrics,
    config: { ...o.config, ...config },
    ...(claim ? { claim } : {}),
    ...(o.faults ? { faults: o.faults } : {}),
  });
  return { relay, publisher };
}

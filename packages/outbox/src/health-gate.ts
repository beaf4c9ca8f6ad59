// The relay's health gate. A batch that met no broker answer closes it: nothing is claimed until it opens
// (1 s, doubling to 15 s), so an outage costs no attempts and no lease churn; and until the broker
// confirms something again the relay is `suspect` and claims only a probe batch.
import type { Logger } from "@orderflow/logging";
import type { OutboxMetrics } from "./metrics.ts";

export interface HealthGate {
  isOpen(): boolean;
  /** Closed since an outage and not yet confirmed again. */
  suspect(): boolean;
  /** When it opens again (epoch ms). */
  until(): number;
  close(reason: string, rows: number, messageIds: string[]): void;
  /** The broker confirmed something: healthy again. */
  confirmed(): void;
}

export function createHealthGate(
  cfg: { gateMinMs: number; gateMaxMs: number },
  log: Logger,
  metrics: OutboxMetrics | undefined,
): HealthGate {
  let gateUntil = 0;
  let gateDelay = cfg.gateMinMs;
  let suspect = false;
  return {
    isOpen: () => Date.now() >= gateUntil,
    suspect: () => suspect,
    until: () => gateUntil,
    close(reason, rows, messageIds) {
      metrics?.outages.inc();
      if (!suspect) log.warn({ reason, rows, messageIds, retryInMs: gateDelay }, "relay.broker_unavailable");
      suspect = true;
      gateUntil = Date.now() + gateDelay;
      gateDelay = Math.min(cfg.gateMaxMs, gateDelay * 2);
    },
    confirmed() {
      if (suspect) log.info("relay.broker_available");
      suspect = false;
      gateDelay = cfg.gateMinMs;
    },
  };
}

import { type Logger, silentLogger } from "@orderflow/logging";
import { type BrokerConnection, createBrokerConnection } from "@orderflow/messaging";

/**
 * The relay's own broker connection, apart from any consumer's: the confirm publisher recycles it after a
 * confirm timeout or a run of nacks, and that must never disturb a consumer. A short heartbeat notices a
 * dead node in seconds; the reconnect waits out the leader-election window (a channel opened during it
 * can stay broken).
 */
export function createRelayConnection(opts: {
  urls: string[];
  log?: Logger;
  /** Default "outbox-relay". */
  name?: string;
  reconnectDelayMs?: number;
}): BrokerConnection {
  return createBrokerConnection({
    urls: opts.urls,
    name: opts.name ?? "outbox-relay",
    reconnectDelayMs: opts.reconnectDelayMs ?? 1_500,
    maxReconnectDelayMs: 15_000,
    heartbeatSeconds: 5,
    connectTimeoutMs: 5_000,
    log: opts.log ?? silentLogger,
  });
}

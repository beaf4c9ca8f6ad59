// The shapes of the failover connection, apart from its implementation so that its parts (failover.ts,
// connection.ts) and its users import them without a cycle.
import type { Logger } from "@orderflow/logging";
import type { Channel, ChannelModel, ConfirmChannel } from "amqplib";

export interface ConnectionOptions {
  /** One AMQP URL per cluster node. */
  urls: string[];
  /** Shown in the broker's connection list. */
  name: string;
  /** Wait after a connection loss before the first reconnect (leader-election window). Default 1500. */
  reconnectDelayMs?: number;
  /** Ceiling of the backoff after whole rounds of failed attempts. Default 15000. */
  maxReconnectDelayMs?: number;
  heartbeatSeconds?: number;
  connectTimeoutMs?: number;
  log?: Logger;
}

export interface ConnectionHealth {
  connected: boolean;
  /** The node URL in use, without credentials. */
  node: string | undefined;
  connects: number;
  lastError: string | undefined;
  disconnectedAt: number | undefined;
  /** Each outage: when it started, how long until connected again (ms), the node left and the one reached. */
  outages: { at: number; ms: number; from: string | undefined; to: string }[];
}

export interface BrokerConnection {
  /** Resolves when a connection is up (now or later); rejects after timeoutMs. */
  ready(timeoutMs?: number): Promise<ChannelModel>;
  /** Runs fn on every (re)connect, now too if connected; returns an unsubscribe function. */
  onConnect(fn: (model: ChannelModel) => void): () => void;
  /** Runs fn on every connection loss. */
  onDisconnect(fn: (err: Error | undefined) => void): () => void;
  createChannel(): Promise<Channel>;
  createConfirmChannel(): Promise<ConfirmChannel>;
  /**
   * Drops the connection in use and fails over to the next node after the usual delay: for an owner
   * whose channel stays silent or broken on this node (quorum lost, a channel opened mid-election).
   */
  reconnect(reason: string): void;
  health(): ConnectionHealth;
  /** Closes every channel opened through this object, then the connection (otherwise the last acks are lost). */
  close(): Promise<void>;
}

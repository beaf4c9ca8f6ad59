// One AMQP connection that knows every cluster node and fails over between them.
//
// Why our own layer (not amqplib's `recovery`, not amqp-connection-manager): amqplib's recovery reconnects
// to one URL and restores no channels; amqp-connection-manager buffers publishes in memory while
// disconnected, which would hide an outage from the outbox relay (its rows must stay unsent, not sit in a
// process buffer), and it reconnects as soon as it can, i.e. inside the quorum leader election, where a
// fresh channel can stay broken until the dead node returns (shared notes). This layer waits
// `reconnectDelayMs` (>= 1.5 s) after a connection loss, rotates through the node URLs, backs off after a
// full round of failures (failover.ts), and tells its owners (consumers, publishers) to re-create their
// channels.
import { silentLogger } from "@orderflow/logging";
import type { ChannelModel } from "amqplib";
import type { BrokerConnection, ConnectionOptions } from "./connection-types.ts";
import { MessagingError } from "./errors.ts";
import { type LinkState, onClose, safely, schedule, track } from "./failover.ts";

export type { BrokerConnection, ConnectionHealth, ConnectionOptions } from "./connection-types.ts";

function ready(s: LinkState, timeoutMs: number): Promise<ChannelModel> {
  if (s.model) return Promise.resolve(s.model);
  if (s.closing) return Promise.reject(new MessagingError("CLOSED", "connection closed"));
  return new Promise((resolve, reject) => {
    const w = (m: ChannelModel) => {
      clearTimeout(t);
      resolve(m);
    };
    const t = setTimeout(() => {
      s.waiters = s.waiters.filter((x) => x !== w);
      const why = s.health.lastError ?? "no error";
      reject(new MessagingError("NOT_CONNECTED", `no broker connection within ${timeoutMs} ms (${why})`));
    }, timeoutMs);
    s.waiters.push(w);
  });
}

async function close(s: LinkState): Promise<void> {
  s.closing = true;
  if (s.timer) clearTimeout(s.timer);
  const m = s.model;
  for (const c of [...s.channels]) await c.close().catch(() => {});
  s.channels.clear();
  s.model = undefined;
  s.health.connected = false;
  if (m) await m.close().catch(() => {});
}

function newState(opts: ConnectionOptions): LinkState {
  return {
    opts,
    delay: Math.max(opts.reconnectDelayMs ?? 1500, 0),
    maxDelay: opts.maxReconnectDelayMs ?? 15_000,
    log: opts.log ?? silentLogger,
    health: {
      connected: false,
      node: undefined,
      connects: 0,
      lastError: undefined,
      disconnectedAt: undefined,
      outages: [],
    },
    model: undefined,
    modelUrl: "",
    closing: false,
    nextUrl: 0,
    timer: undefined,
    waiters: [],
    connectListeners: new Set(),
    disconnectListeners: new Set(),
    channels: new Set(),
  };
}

export function createBrokerConnection(opts: ConnectionOptions): BrokerConnection {
  if (opts.urls.length === 0) throw new Error("createBrokerConnection: no broker URLs");
  const s = newState(opts);
  const live = (): ChannelModel => {
    if (!s.model) throw new MessagingError("NOT_CONNECTED", "not connected to the broker");
    return s.model;
  };
  schedule(s, 0, 0);
  return {
    ready: (timeoutMs = 30_000) => ready(s, timeoutMs),
    onConnect(fn) {
      s.connectListeners.add(fn);
      const m = s.model;
      if (m) safely(s, () => fn(m));
      return () => s.connectListeners.delete(fn);
    },
    onDisconnect(fn) {
      s.disconnectListeners.add(fn);
      return () => s.disconnectListeners.delete(fn);
    },
    createChannel: async () => track(s, await live().createChannel()),
    createConfirmChannel: async () => track(s, await live().createConfirmChannel()),
    reconnect(reason) {
      const m = s.model;
      if (!m || s.closing) return;
      // Lost from here on, whether or not the node answers the close: a silent node may never.
      onClose(s, m, s.modelUrl, new Error(`recycled: ${reason}`));
      void m.close().catch(() => {});
    },
    health: () => ({ ...s.health, outages: [...s.health.outages] }),
    close: () => close(s),
  };
}

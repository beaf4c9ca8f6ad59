// One AMQP connection that knows every cluster node and fails over between them.
//
// Why our own layer (not amqplib's `recovery`, not amqp-connection-manager): amqplib's recovery reconnects
// to one URL and restores no channels; amqp-connection-manager buffers publishes in memory while
// disconnected, which would hide an outage from the outbox relay (its rows must stay unsent, not sit in a
// process buffer), and it reconnects as soon as it can, i.e. inside the quorum leader election, where a
// fresh channel can stay broken until the dead node returns (shared notes). This layer waits
// `reconnectDelayMs` (>= 1.5 s) after a connection loss, rotates through the node URLs, backs off after a
// full round of failures, and tells its owners (consumers, publishers) to re-create their channels.
import amqp, { type Channel, type ChannelModel, type ConfirmChannel } from "amqplib";
import { MessagingError } from "./errors.ts";
import type { Logger } from "./logger.ts";

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

const redact = (url: string) => url.replace(/\/\/[^@]*@/, "//");

function withParams(url: string, heartbeat: number, name: string): string {
  const u = new URL(url);
  if (!u.searchParams.has("heartbeat")) u.searchParams.set("heartbeat", String(heartbeat));
  u.searchParams.set("connection_name", name);
  return u.toString();
}

export function createBrokerConnection(opts: ConnectionOptions): BrokerConnection {
  if (opts.urls.length === 0) throw new Error("createBrokerConnection: no broker URLs");
  const delay = Math.max(opts.reconnectDelayMs ?? 1500, 0);
  const maxDelay = opts.maxReconnectDelayMs ?? 15_000;
  const log = opts.log ?? (() => {});
  const connectListeners = new Set<(m: ChannelModel) => void>();
  const disconnectListeners = new Set<(e: Error | undefined) => void>();
  const channels = new Set<Channel>();
  const health: ConnectionHealth = {
    connected: false,
    node: undefined,
    connects: 0,
    lastError: undefined,
    disconnectedAt: undefined,
    outages: [],
  };
  let model: ChannelModel | undefined;
  let modelUrl = "";
  let closing = false;
  let nextUrl = 0;
  let timer: NodeJS.Timeout | undefined;
  let waiters: { resolve: (m: ChannelModel) => void }[] = [];

  async function attempt(): Promise<{ m: ChannelModel; url: string }> {
    const url = opts.urls[nextUrl % opts.urls.length] as string;
    nextUrl = (nextUrl + 1) % opts.urls.length;
    const m = await amqp.connect(withParams(url, opts.heartbeatSeconds ?? 10, opts.name), {
      timeout: opts.connectTimeoutMs ?? 5_000,
    });
    // A node that dies makes amqplib emit `error` then `close`; a graceful node stop (CONNECTION_FORCED)
    // arrives only as the argument of `close`. Both end here.
    m.on("error", (e: Error) => {
      health.lastError = e.message;
    });
    m.on("close", (e?: Error) => onClose(m, url, e));
    return { m, url };
  }

  function onClose(m: ChannelModel, url: string, e?: Error): void {
    if (model !== m) return;
    model = undefined;
    channels.clear();
    health.connected = false;
    health.disconnectedAt = Date.now();
    if (e) health.lastError = e.message;
    if (closing) return;
    log("warn", "broker connection lost", { node: redact(url), error: e?.message });
    for (const fn of disconnectListeners) safely(() => fn(e));
    // Jittered upwards only (never inside the election window): the six processes of a stack lose the
    // same node at once and should not all return in the same instant.
    schedule(Math.round(delay * (1 + 0.3 * Math.random())), 0);
  }

  function schedule(ms: number, failures: number): void {
    if (closing || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connectLoop(failures);
    }, ms);
    timer.unref?.();
  }

  async function connectLoop(failures: number): Promise<void> {
    if (closing || model) return;
    const prevNode = health.node;
    try {
      const { m, url: rawUrl } = await attempt();
      if (closing) {
        await m.close().catch(() => {});
        return;
      }
      model = m;
      modelUrl = rawUrl;
      const url = redact(rawUrl);
      health.connected = true;
      health.connects += 1;
      health.node = url;
      if (health.disconnectedAt !== undefined) {
        const ms = Date.now() - health.disconnectedAt;
        health.outages.push({ at: health.disconnectedAt, ms, from: prevNode, to: url });
        log("info", "broker connection restored", { node: url, outageMs: ms });
      }
      health.disconnectedAt = undefined;
      const ws = waiters;
      waiters = [];
      for (const w of ws) w.resolve(m);
      for (const fn of connectListeners) safely(() => fn(m));
    } catch (e) {
      health.lastError = (e as Error).message;
      const n = failures + 1;
      // Try the next node at once until a whole round failed, then back off.
      const round = Math.floor(n / opts.urls.length);
      const wait = n % opts.urls.length === 0 ? Math.min(maxDelay, Math.max(delay, 250) * 2 ** round) : 0;
      if (n % opts.urls.length === 0)
        log("warn", "no broker node reachable", { error: health.lastError, retryInMs: wait });
      schedule(wait, n);
    }
  }

  function safely(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      log("error", "connection listener failed", { error: (e as Error).message });
    }
  }

  function track<C extends Channel>(c: C): C {
    channels.add(c);
    c.on("close", () => channels.delete(c));
    // Unhandled channel errors would crash the process; owners react to `close`.
    c.on("error", () => {});
    return c;
  }

  schedule(0, 0);

  return {
    ready(timeoutMs = 30_000) {
      if (model) return Promise.resolve(model);
      if (closing) return Promise.reject(new MessagingError("CLOSED", "connection closed"));
      return new Promise((resolve, reject) => {
        const w = {
          resolve: (m: ChannelModel) => {
            clearTimeout(t);
            resolve(m);
          },
        };
        const t = setTimeout(() => {
          waiters = waiters.filter((x) => x !== w);
          reject(
            new MessagingError(
              "NOT_CONNECTED",
              `no broker connection within ${timeoutMs} ms (${health.lastError ?? "no error"})`,
            ),
          );
        }, timeoutMs);
        waiters.push(w);
      });
    },
    onConnect(fn) {
      connectListeners.add(fn);
      if (model) safely(() => fn(model as ChannelModel));
      return () => connectListeners.delete(fn);
    },
    onDisconnect(fn) {
      disconnectListeners.add(fn);
      return () => disconnectListeners.delete(fn);
    },
    async createChannel() {
      if (!model) throw new MessagingError("NOT_CONNECTED", "not connected to the broker");
      return track(await model.createChannel());
    },
    async createConfirmChannel() {
      if (!model) throw new MessagingError("NOT_CONNECTED", "not connected to the broker");
      return track(await model.createConfirmChannel());
    },
    reconnect(reason) {
      const m = model;
      if (!m || closing) return;
      // Lost from here on, whether or not the node answers the close: a silent node may never.
      onClose(m, modelUrl, new Error(`recycled: ${reason}`));
      void m.close().catch(() => {});
    },
    health: () => ({ ...health, outages: [...health.outages] }),
    async close() {
      closing = true;
      if (timer) clearTimeout(timer);
      const m = model;
      for (const c of [...channels]) await c.close().catch(() => {});
      channels.clear();
      model = undefined;
      health.connected = false;
      if (m) await m.close().catch(() => {});
    },
  };
}

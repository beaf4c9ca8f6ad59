// The reconnect machinery behind createBrokerConnection: which node to try next, how long to wait, and
// telling the connection's owners when it comes and goes. State is one explicit object (LinkState) that
// connection.ts creates and these functions advance.
//
// Why wait `delay` (>= 1.5 s) after a loss instead of reconnecting at once: inside the quorum leader
// election a fresh channel can stay broken until the dead node returns (shared notes).
import type { Logger } from "@orderflow/logging";
import amqp, { type Channel, type ChannelModel } from "amqplib";
import type { ConnectionHealth, ConnectionOptions } from "./connection-types.ts";

export interface LinkState {
  opts: ConnectionOptions;
  delay: number;
  maxDelay: number;
  log: Logger;
  health: ConnectionHealth;
  model: ChannelModel | undefined;
  modelUrl: string;
  closing: boolean;
  nextUrl: number;
  timer: NodeJS.Timeout | undefined;
  waiters: ((m: ChannelModel) => void)[];
  connectListeners: Set<(m: ChannelModel) => void>;
  disconnectListeners: Set<(e: Error | undefined) => void>;
  /** Every channel opened through this connection, closed before it (or the last acks are lost). */
  channels: Set<Channel>;
}

export const redact = (url: string) => url.replace(/\/\/[^@]*@/, "//");

function withParams(url: string, heartbeat: number, name: string): string {
  const u = new URL(url);
  if (!u.searchParams.has("heartbeat")) u.searchParams.set("heartbeat", String(heartbeat));
  u.searchParams.set("connection_name", name);
  return u.toString();
}

export function safely(s: LinkState, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    s.log.error({ error: (e as Error).message }, "broker.listener_failed");
  }
}

async function attempt(s: LinkState): Promise<{ m: ChannelModel; url: string }> {
  const urls = s.opts.urls;
  const url = urls[s.nextUrl % urls.length] as string;
  s.nextUrl = (s.nextUrl + 1) % urls.length;
  const m = await amqp.connect(withParams(url, s.opts.heartbeatSeconds ?? 10, s.opts.name), {
    timeout: s.opts.connectTimeoutMs ?? 5_000,
  });
  // A node that dies makes amqplib emit `error` then `close`; a graceful node stop (CONNECTION_FORCED)
  // arrives only as the argument of `close`. Both end here.
  m.on("error", (e: Error) => {
    s.health.lastError = e.message;
  });
  m.on("close", (e?: Error) => onClose(s, m, url, e));
  return { m, url };
}

export function onClose(s: LinkState, m: ChannelModel, url: string, e?: Error): void {
  if (s.model !== m) return;
  s.model = undefined;
  s.channels.clear();
  s.health.connected = false;
  s.health.disconnectedAt = Date.now();
  if (e) s.health.lastError = e.message;
  if (s.closing) return;
  s.log.warn({ node: redact(url), error: e?.message }, "broker.connection_lost");
  for (const fn of s.disconnectListeners) safely(s, () => fn(e));
  // Jittered upwards only (never inside the election window): the six processes of a stack lose the
  // same node at once and should not all return in the same instant.
  schedule(s, Math.round(s.delay * (1 + 0.3 * Math.random())), 0);
}

export function schedule(s: LinkState, ms: number, failures: number): void {
  if (s.closing || s.timer) return;
  s.timer = setTimeout(() => {
    s.timer = undefined;
    void connectLoop(s, failures);
  }, ms);
  s.timer.unref?.();
}

function connected(s: LinkState, m: ChannelModel, rawUrl: string): void {
  const prevNode = s.health.node;
  s.model = m;
  s.modelUrl = rawUrl;
  const url = redact(rawUrl);
  const h = s.health;
  h.connected = true;
  h.connects += 1;
  h.node = url;
  if (h.disconnectedAt !== undefined) {
    const ms = Date.now() - h.disconnectedAt;
    h.outages.push({ at: h.disconnectedAt, ms, from: prevNode, to: url });
    s.log.info({ node: url, outageMs: ms }, "broker.connection_restored");
  }
  h.disconnectedAt = undefined;
  const ws = s.waiters;
  s.waiters = [];
  for (const w of ws) w(m);
  for (const fn of s.connectListeners) safely(s, () => fn(m));
}

async function connectLoop(s: LinkState, failures: number): Promise<void> {
  if (s.closing || s.model) return;
  try {
    const { m, url } = await attempt(s);
    if (s.closing) {
      await m.close().catch(() => {});
      return;
    }
    connected(s, m, url);
  } catch (e) {
    s.health.lastError = (e as Error).message;
    const n = failures + 1;
    const nodes = s.opts.urls.length;
    // Try the next node at once until a whole round failed, then back off.
    const round = Math.floor(n / nodes);
    const wait = n % nodes === 0 ? Math.min(s.maxDelay, Math.max(s.delay, 250) * 2 ** round) : 0;
    if (n % nodes === 0) s.log.warn({ error: s.health.lastError, retryInMs: wait }, "broker.unreachable");
    schedule(s, wait, n);
  }
}

export function track<C extends Channel>(s: LinkState, c: C): C {
  s.channels.add(c);
  c.on("close", () => s.channels.delete(c));
  // Unhandled channel errors would crash the process; owners react to `close`.
  c.on("error", () => {});
  return c;
}

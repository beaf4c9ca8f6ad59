// The confirm publisher's one channel: opened on every (re)connect of the BrokerConnection, re-opened when
// the broker closes it on a live connection, and the place where `basic.return`s are remembered until the
// ack of the same message (a return precedes the ack on its channel).
import type { Logger } from "@orderflow/logging";
import type { ConfirmChannel } from "amqplib";
import type { BrokerConnection } from "./connection-types.ts";
import { sleep } from "./sleep.ts";

export interface ChannelKeeper {
  current(): ConfirmChannel | undefined;
  /** The unroutable reason of a returned message, once (then forgotten); undefined if not returned. */
  takeReturned(messageId: string): string | undefined;
  waitUntilConnected(timeoutMs: number): Promise<boolean>;
  /** Closes the current channel; another is opened on the same connection after the election window. */
  recycle(reason: string): void;
  close(): Promise<void>;
}

interface KeeperState {
  conn: BrokerConnection;
  log: Logger;
  mode: "connection" | "channel";
  closed: boolean;
  channel: ConfirmChannel | undefined;
  opening: boolean;
  /** A new connection arrived while an older one's channel was being opened. */
  openAgain: boolean;
  returned: Map<string, string>;
  connectedWaiters: (() => void)[];
  /** The current channel is being closed on purpose (recycle): reopen it after the election window. */
  recycling: boolean;
}

async function openChannel(s: KeeperState): Promise<void> {
  if (s.closed || s.channel) return;
  if (s.opening) {
    s.openAgain = true;
    return;
  }
  s.opening = true;
  const generation = s.conn.health().connects;
  try {
    const ch = await s.conn.createConfirmChannel();
    if (s.closed) {
      await ch.close().catch(() => {});
      return;
    }
    attach(s, ch);
    s.log.info({ node: s.conn.health().node }, "amqp.connected");
  } catch (e) {
    // A connection whose confirm channel cannot be opened (e.g. during an election) is not kept; but
    // only that one: a newer connection may have come up meanwhile.
    s.log.warn({ error: (e as Error).message }, "amqp.channel_failed");
    if (s.mode === "channel") reopenLater(s);
    else if (s.conn.health().connects === generation)
      s.conn.reconnect(`confirm channel: ${(e as Error).message}`);
  } finally {
    s.opening = false;
    if (s.openAgain && !s.channel && !s.closed) {
      s.openAgain = false;
      void openChannel(s);
    }
  }
}

// Outside the leader-election window, like a reconnect: a channel opened inside it can stay broken.
const REOPEN_DELAY_MS = 1_500;
function reopenLater(s: KeeperState): void {
  setTimeout(() => void openChannel(s), REOPEN_DELAY_MS).unref?.();
}

function attach(s: KeeperState, ch: ConfirmChannel): void {
  s.channel = ch;
  s.returned = new Map();
  ch.on("error", (err: Error) => s.log.warn({ error: err.message }, "amqp.channel_error"));
  // A channel the broker closed (an oversized frame, a precondition) on a live connection: open another.
  // Its unconfirmed publishes have failed with "channel closed" -> unavailable.
  ch.on("close", () => {
    if (s.channel !== ch) return;
    s.channel = undefined;
    s.log.warn({ reason: "channel closed" }, "amqp.lost");
    if (s.recycling) {
      s.recycling = false;
      reopenLater(s);
    } else void openChannel(s);
  });
  ch.on("return", (msg) => {
    const id = msg.properties.messageId as string | undefined;
    const fields = msg.fields as typeof msg.fields & { replyText?: string };
    if (id)
      s.returned.set(id, `unroutable: ${fields.replyText ?? "returned"} (routing key ${fields.routingKey})`);
  });
  const ws = s.connectedWaiters;
  s.connectedWaiters = [];
  for (const w of ws) w();
}

export function keepConfirmChannel(
  conn: BrokerConnection,
  log: Logger,
  mode: "connection" | "channel" = "connection",
): ChannelKeeper {
  const s: KeeperState = {
    conn,
    log,
    mode,
    recycling: false,
    closed: false,
    channel: undefined,
    opening: false,
    openAgain: false,
    returned: new Map(),
    connectedWaiters: [],
  };
  const offConnect = conn.onConnect(() => void openChannel(s));
  const offDisconnect = conn.onDisconnect((e) => {
    // The connection closed its channels: their unconfirmed publishes fail -> unavailable.
    s.channel = undefined;
    log.warn({ reason: e?.message ?? "connection closed" }, "amqp.lost");
  });
  return {
    current: () => s.channel,
    takeReturned(id) {
      const why = s.returned.get(id);
      if (why !== undefined) s.returned.delete(id);
      return why;
    },
    async waitUntilConnected(timeoutMs) {
      if (s.channel) return true;
      let waiter: (() => void) | undefined;
      const connected = new Promise<void>((r) => {
        waiter = r;
        s.connectedWaiters.push(r);
      });
      await Promise.race([connected, sleep(timeoutMs)]);
      // Called once a second through a long outage: do not let timed-out waiters pile up.
      s.connectedWaiters = s.connectedWaiters.filter((w) => w !== waiter);
      return s.channel !== undefined;
    },
    recycle(reason) {
      const ch = s.channel;
      if (!ch || s.recycling) return;
      s.recycling = true;
      log.warn({ reason }, "amqp.channel_recycled");
      void ch.close().catch(() => {});
    },
    async close() {
      if (s.closed) return;
      s.closed = true;
      offConnect();
      offDisconnect();
      const ch = s.channel;
      s.channel = undefined;
      await ch?.close().catch(() => {});
    },
  };
}

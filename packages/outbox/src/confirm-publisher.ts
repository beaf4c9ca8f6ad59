// The publishing half of the relay: one confirm channel over packages/messaging's failover connection
// (every node's URL, reconnect delay outside the leader-election window, backoff), a window of many
// publishes in flight, and a verdict per message.
//
// Verdicts:
//  - confirmed: the broker acked and did not return it (for a quorum queue: replicated to a majority).
//  - refused: the broker said no (returned as unroutable under `mandatory`, an isolated nack, too large to
//    send). The relay retries these with backoff and eventually parks them as failed.
//  - unavailable: no answer (no connection, connection lost, or silence until the confirm timeout, as
//    when quorum is lost) or a run of nacks. Never the message's fault: the relay keeps it pending behind
//    its health gate.
//
// Why not messaging's per-message createConfirmPublisher: the relay needs a verdict per message of a
// batch with "unavailable" apart from "refused", so that an outage never counts as an attempt.
import { createBrokerConnection } from "@orderflow/messaging";
import type { ConfirmChannel } from "amqplib";
import { silentLog } from "./log.ts";
import type { Log } from "./types.ts";

export interface OutgoingMessage {
  messageId: string;
  routingKey: string;
  body: Buffer;
  type?: string;
  correlationId?: string;
  contentType?: string;
  /** Seconds since the epoch, as AMQP wants it. */
  timestamp?: number;
  headers?: Record<string, unknown>;
}

export type PublishOutcome =
  | { status: "confirmed" }
  | { status: "refused"; reason: string }
  | { status: "unavailable"; reason: string };

export interface ConfirmPublisherOptions {
  /** One URL per cluster node: the publisher opens (and closes) a connection of its own. */
  urls: string[];
  /** The connection's name in the broker's list. */
  name?: string;
  exchange: string;
  log?: Log;
  /** Silence longer than this after the last publish of a batch counts as an outage. */
  confirmTimeoutMs?: number;
  /** Cap on unconfirmed publishes; a silent broker cannot make us buffer without bound. */
  maxInFlight?: number;
  /** Wait before reconnecting: a channel opened during a quorum leader election can stay broken. */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** A run of this many consecutive nacks is a channel/queue problem: unavailable, and the connection recycles. */
  recycleAfterNacks?: number;
  /** Bodies above this are refused without sending: the broker would close the channel on them. */
  maxMessageBytes?: number;
  connectTimeoutMs?: number;
  heartbeatSeconds?: number;
  onWindow?: (inFlight: number) => void;
}

export interface ConfirmPublisher {
  publishBatch(messages: OutgoingMessage[]): Promise<PublishOutcome[]>;
  isConnected(): boolean;
  /** Resolves true once a channel is open, false after `timeoutMs`. */
  waitUntilConnected(timeoutMs: number): Promise<boolean>;
  inFlight(): number;
  close(): Promise<void>;
}

const NACKED = "nacked by the broker";
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

export function createConfirmPublisher(opts: ConfirmPublisherOptions): ConfirmPublisher {
  const log = opts.log ?? silentLog;
  if (opts.urls.length === 0) throw new Error("confirm publisher needs at least one AMQP URL");
  // Its own connection, apart from the consumer's: recycling it (silent confirms) never disturbs consumers.
  const conn = createBrokerConnection({
    urls: opts.urls,
    name: opts.name ?? "outbox-relay",
    reconnectDelayMs: opts.reconnectDelayMs ?? 1_500,
    maxReconnectDelayMs: opts.maxReconnectDelayMs ?? 15_000,
    // A short heartbeat notices a dead node in seconds.
    heartbeatSeconds: opts.heartbeatSeconds ?? 5,
    connectTimeoutMs: opts.connectTimeoutMs ?? 5_000,
    log,
  });
  const confirmTimeoutMs = opts.confirmTimeoutMs ?? 10_000;
  const maxInFlight = opts.maxInFlight ?? 2_000;
  const recycleAfterNacks = opts.recycleAfterNacks ?? 5;
  const maxMessageBytes = opts.maxMessageBytes ?? 16 * 1024 * 1024;

  let closed = false;
  let channel: ConfirmChannel | undefined;
  let opening = false;
  let consecutiveNacks = 0;
  let inFlight = 0;
  let slotWaiters: (() => void)[] = [];
  let connectedWaiters: (() => void)[] = [];
  // basic.return precedes the basic.ack of the same message on its channel: remember it until the ack.
  let returned = new Map<string, string>();

  const setInFlight = (n: number) => {
    inFlight = n;
    opts.onWindow?.(n);
    if (inFlight < maxInFlight && slotWaiters.length > 0) {
      const ws = slotWaiters;
      slotWaiters = [];
      for (const w of ws) w();
    }
  };

  let openAgain = false;
  async function openChannel(): Promise<void> {
    if (closed || channel) return;
    if (opening) {
      openAgain = true; // a new connection arrived while an older one's channel was being opened
      return;
    }
    opening = true;
    const generation = conn.health().connects;
    try {
      const ch = await conn.createConfirmChannel();
      if (closed) {
        await ch.close().catch(() => {});
        return;
      }
      attach(ch);
      log("info", "amqp.connected", { node: conn.health().node });
    } catch (e) {
      // A connection whose confirm channel cannot be opened (e.g. during an election) is not kept; but
      // only that one: a newer connection may have come up meanwhile.
      log("warn", "amqp.channel_failed", { error: (e as Error).message });
      if (conn.health().connects === generation) conn.reconnect(`confirm channel: ${(e as Error).message}`);
    } finally {
      opening = false;
      if (openAgain && !channel && !closed) {
        openAgain = false;
        void openChannel();
      }
    }
  }

  function attach(ch: ConfirmChannel): void {
    channel = ch;
    returned = new Map();
    consecutiveNacks = 0;
    ch.on("error", (err: Error) => log("warn", "amqp.channel_error", { error: err.message }));
    // A channel the broker closed (an oversized frame, a precondition) on a live connection: open another.
    // Its unconfirmed publishes have failed with "channel closed" -> unavailable.
    ch.on("close", () => {
      if (channel !== ch) return;
      channel = undefined;
      log("warn", "amqp.lost", { reason: "channel closed" });
      void openChannel();
    });
    ch.on("return", (msg) => {
      const id = msg.properties.messageId as string | undefined;
      const fields = msg.fields as typeof msg.fields & { replyText?: string };
      if (id)
        returned.set(id, `unroutable: ${fields.replyText ?? "returned"} (routing key ${fields.routingKey})`);
    });
    const ws = connectedWaiters;
    connectedWaiters = [];
    for (const w of ws) w();
  }

  const offConnect = conn.onConnect(() => void openChannel());
  const offDisconnect = conn.onDisconnect((e) => {
    // The connection closed its channels: their unconfirmed publishes fail -> unavailable.
    channel = undefined;
    log("warn", "amqp.lost", { reason: e?.message ?? "connection closed" });
  });

  /** Drops the current connection and moves on to the next node ("amqp.lost" says "recycled: ..."). */
  const recycle = (reason: string) => conn.reconnect(reason);

  async function acquireSlot(deadline: number): Promise<boolean> {
    while (inFlight >= maxInFlight) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await Promise.race([new Promise<void>((r) => slotWaiters.push(r)), sleep(left)]);
    }
    return true;
  }

  async function publishBatch(messages: OutgoingMessage[]): Promise<PublishOutcome[]> {
    const out: (PublishOutcome | undefined)[] = new Array(messages.length).fill(undefined);
    const ch = channel;
    if (!ch) return messages.map(() => ({ status: "unavailable", reason: "not connected" }));
    let pending = 0;
    let resolveAll: () => void = () => {};
    const allSettled = new Promise<void>((r) => {
      resolveAll = r;
    });
    const settle = (i: number, o: PublishOutcome) => {
      if (out[i] !== undefined) return;
      out[i] = o;
      pending--;
      setInFlight(inFlight - 1);
      if (pending === 0) resolveAll();
    };

    let deadline = Date.now() + confirmTimeoutMs;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i] as OutgoingMessage;
      if (m.body.length > maxMessageBytes) {
        out[i] = {
          status: "refused",
          reason: `message too large: ${m.body.length} > ${maxMessageBytes} bytes`,
        };
        continue;
      }
      if (channel !== ch || !(await acquireSlot(deadline))) {
        out[i] = {
          status: "unavailable",
          reason: channel !== ch ? "channel lost" : "in-flight cap: no confirms",
        };
        continue;
      }
      pending++;
      setInFlight(inFlight + 1);
      try {
        const writable = ch.publish(
          opts.exchange,
          m.routingKey,
          m.body,
          {
            persistent: true,
            mandatory: true,
            messageId: m.messageId,
            type: m.type,
            correlationId: m.correlationId,
            contentType: m.contentType ?? "application/json",
            timestamp: m.timestamp,
            headers: m.headers,
          },
          (err: Error | null) => {
            if (!err) {
              consecutiveNacks = 0;
              const why = returned.get(m.messageId);
              if (why !== undefined) {
                returned.delete(m.messageId);
                settle(i, { status: "refused", reason: why });
              } else settle(i, { status: "confirmed" });
            } else if (err.message === "message nacked") {
              consecutiveNacks++;
              settle(i, { status: "refused", reason: NACKED });
            } else settle(i, { status: "unavailable", reason: err.message });
          },
        );
        if (!writable) await waitForDrain(ch, deadline);
      } catch (e) {
        // Thrown synchronously: a RangeError/TypeError is about this message (e.g. headers over 64 KiB);
        // anything else (IllegalOperationError: channel closed) is about the connection.
        const err = e as Error;
        const aboutMessage = err instanceof RangeError || err instanceof TypeError;
        pending--;
        setInFlight(inFlight - 1);
        out[i] = aboutMessage
          ? { status: "refused", reason: err.message }
          : { status: "unavailable", reason: err.message };
      }
      deadline = Date.now() + confirmTimeoutMs;
    }

    if (pending > 0) {
      const timedOut = await Promise.race([
        allSettled.then(() => false),
        sleep(Math.max(0, deadline - Date.now())).then(() => true),
      ]);
      if (timedOut) {
        for (let i = 0; i < out.length; i++) {
          if (out[i] === undefined) settle(i, { status: "unavailable", reason: "confirm timeout" });
        }
        // Quorum lost or a broken channel: start over on another node rather than wait here forever.
        if (channel === ch) recycle("confirm timeout");
      }
    }
    if (consecutiveNacks >= recycleAfterNacks) {
      // A run of nacks is about the channel or the queue (a channel broken by a leader election, a queue
      // out of quorum or full under reject-publish), not about these messages: report them unavailable so
      // no attempt is counted, and start over on another node.
      consecutiveNacks = 0;
      for (let i = 0; i < out.length; i++) {
        const o = out[i];
        if (o?.status === "refused" && o.reason === NACKED)
          out[i] = { status: "unavailable", reason: "run of nacks" };
      }
      if (channel === ch) recycle("run of nacks");
    }
    return out as PublishOutcome[];
  }

  async function waitForDrain(ch: ConfirmChannel, deadline: number): Promise<void> {
    await Promise.race([
      new Promise<void>((r) => {
        ch.once("drain", r);
        ch.once("close", r);
      }),
      sleep(Math.max(0, deadline - Date.now())),
    ]);
  }

  return {
    publishBatch,
    isConnected: () => channel !== undefined,
    waitUntilConnected: async (timeoutMs) => {
      if (channel) return true;
      let waiter: (() => void) | undefined;
      const connected = new Promise<void>((r) => {
        waiter = r;
        connectedWaiters.push(r);
      });
      await Promise.race([connected, sleep(timeoutMs)]);
      // Called once a second through a long outage: do not let timed-out waiters pile up.
      connectedWaiters = connectedWaiters.filter((w) => w !== waiter);
      return channel !== undefined;
    },
    inFlight: () => inFlight,
    close: async () => {
      if (closed) return;
      closed = true;
      offConnect();
      offDisconnect();
      const ch = channel;
      channel = undefined;
      await ch?.close().catch(() => {});
      await conn.close();
    },
  };
}

// Keeping a consumer subscribed: a channel with its prefetch and basic.consume, re-created after a lost
// channel (after the election window) or a lost connection (when the connection is back), with each
// interruption of intake measured as a gap.
import type { Logger } from "@orderflow/logging";
import type { Channel, ConsumeMessage } from "amqplib";
import type { BrokerConnection } from "./connection-types.ts";
import type { ConsumerFaults, ConsumerHealth } from "./consumer-types.ts";

export interface SubscriptionOptions {
  conn: BrokerConnection;
  queue: string;
  prefetch: number;
  resubscribeDelayMs: number;
  log: Logger;
  faults: ConsumerFaults | undefined;
  onMessage: (ch: Channel, msg: ConsumeMessage) => void;
}

interface SubState extends SubscriptionOptions {
  channel: Channel | undefined;
  consumerTag: string | undefined;
  stopping: boolean;
  lostAt: number | undefined;
  gaps: ConsumerHealth["gaps"];
  subscribing: Promise<void> | undefined;
  resubscribeTimer: NodeJS.Timeout | undefined;
}

export interface Subscription {
  channel(): Channel | undefined;
  consuming(): boolean;
  gaps(): ConsumerHealth["gaps"];
  /** Stops re-subscribing and cancels the consumer; returns the channel (still open for the last acks). */
  stopIntake(): Promise<Channel | undefined>;
}

function subscribe(s: SubState): Promise<void> {
  if (s.stopping || s.channel) return Promise.resolve();
  s.subscribing ??= doSubscribe(s).finally(() => {
    s.subscribing = undefined;
  });
  return s.subscribing;
}

async function doSubscribe(s: SubState): Promise<void> {
  try {
    const ch = await s.conn.createChannel();
    ch.on("close", () => onChannelLost(s, ch));
    await ch.prefetch(s.prefetch);
    const onMessage = (msg: ConsumeMessage | null) => {
      if (msg === null) {
        // Broker-side cancel (queue deleted, leader moved away in some versions): start over.
        s.log.warn("consumer.cancelled_by_broker");
        void ch.close().catch(() => {});
        return;
      }
      s.onMessage(ch, msg);
    };
    const ok = await ch.consume(s.queue, onMessage);
    s.channel = ch;
    s.consumerTag = ok.consumerTag;
    await s.faults?.afterSubscribe?.(ch, ok.consumerTag);
    if (s.lostAt !== undefined) {
      s.gaps.push({ at: s.lostAt, ms: Date.now() - s.lostAt });
      s.log.info({ gapMs: Date.now() - s.lostAt }, "consumer.consuming_again");
      s.lostAt = undefined;
    }
  } catch (e) {
    s.log.warn({ error: (e as Error).message }, "consumer.subscribe_failed");
    scheduleResubscribe(s);
  }
}

function onChannelLost(s: SubState, ch: Channel): void {
  if (s.channel !== ch) return;
  s.channel = undefined;
  s.consumerTag = undefined;
  s.lostAt ??= Date.now();
  if (!s.stopping) scheduleResubscribe(s);
}

function scheduleResubscribe(s: SubState): void {
  if (s.stopping || s.resubscribeTimer) return;
  // On a live connection (channel-level failure) re-subscribe after the election window; on a lost
  // connection the connection's onConnect will call subscribe() when it is back.
  s.resubscribeTimer = setTimeout(() => {
    s.resubscribeTimer = undefined;
    if (s.conn.health().connected) void subscribe(s);
  }, s.resubscribeDelayMs);
}

/** Subscribes now (resolves after the first attempt) and keeps the subscription alive until stopIntake. */
export async function keepSubscription(opts: SubscriptionOptions): Promise<Subscription> {
  const s: SubState = {
    ...opts,
    channel: undefined,
    consumerTag: undefined,
    stopping: false,
    lostAt: undefined,
    gaps: [],
    subscribing: undefined,
    resubscribeTimer: undefined,
  };
  const offConnect = s.conn.onConnect(() => void subscribe(s));
  const offDisconnect = s.conn.onDisconnect(() => {
    if (s.channel) onChannelLost(s, s.channel);
    else s.lostAt ??= Date.now();
  });
  await subscribe(s);
  return {
    channel: () => s.channel,
    consuming: () => s.channel !== undefined && s.consumerTag !== undefined,
    gaps: () => [...s.gaps],
    async stopIntake() {
      s.stopping = true;
      if (s.resubscribeTimer) clearTimeout(s.resubscribeTimer);
      offConnect();
      offDisconnect();
      const ch = s.channel;
      const tag = s.consumerTag;
      s.consumerTag = undefined;
      if (ch && tag) await ch.cancel(tag).catch(() => {});
      s.channel = undefined;
      return ch;
    },
  };
}

// The consumer runtime: a service gives typed handlers and a transaction runner. This file keeps the
// subscription alive (re-created after a lost channel or connection, a watchdog for silent channels),
// counts in-flight work and stops gracefully; delivery.ts decides the fate of each message.
import type { Channel, ChannelModel, ConsumeMessage } from "amqplib";
import { createConfirmPublisher } from "./confirm-publisher.ts";
import type { BrokerConnection } from "./connection.ts";
import type { DedupCache } from "./dedup-cache.ts";
import { createDelivery, type Handlers, type Outcome } from "./delivery.ts";
import { PoisonMessageError } from "./errors.ts";
import type { InboundEvent } from "./inbound.ts";
import type { TransactionRunner } from "./inbox.ts";
import type { Logger } from "./logger.ts";
import { assertRetention, type RetentionConfig } from "./retention.ts";
import { assertTopology, consumerRequirements, RETRY_TIERS, type RetryTier } from "./topology.ts";

export type { Handler, HandlerResult, Handlers, Outcome } from "./delivery.ts";

export interface ConsumerOptions {
  connection: BrokerConnection;
  /** The work queue, e.g. "inventory.order-events". */
  queue: string;
  /** Inbox key part: stable per logical consumer, shared by its instances. */
  consumerName: string;
  handlers: Handlers;
  transaction: TransactionRunner;
  retention: RetentionConfig;
  dedupCache?: DedupCache;
  /** Default 100 (quorum queues perform badly below). */
  prefetch?: number;
  /** One retry per entry, then the parking lot. Default 1s, 5s, 30s. */
  retrySchedule?: readonly RetryTier[];
  /** Which handler errors are worth a retry. Default: all but PoisonMessageError. */
  isTransient?: (e: unknown) => boolean;
  /** Wait after a lost channel before re-subscribing on a live connection. Default 1500. */
  resubscribeDelayMs?: number;
  /** Interval of the silent-channel watchdog (0 = off). Default 15000. */
  silentChannelCheckMs?: number;
  shutdownTimeoutMs?: number;
  confirmTimeoutMs?: number;
  log?: Logger;
  /** Observes every outcome (metrics, tests). */
  onOutcome?: (o: Outcome) => void;
  /** Named fault points a test arms to break the runtime on purpose; never set in services. */
  faults?: ConsumerFaults;
  /** FAULT LAB ONLY: protections switched off to show what they prevent (see LabConsumerPitfalls). */
  lab?: LabConsumerPitfalls;
}

/**
 * The fault lab's pitfalls (load-tests/src/fault), each a protection removed. Never set in production:
 * services set them only from ORDERFLOW_LAB_PITFALL.
 */
export interface LabConsumerPitfalls {
  /** Deduplicate on this key instead of the message id (e.g. the business id: payload.orderId). */
  dedupKey?: (event: InboundEvent) => string;
  /** No inbox claim: every delivery runs its handler. */
  inbox?: false;
  /** Consume with noAck: the broker forgets a message as soon as it is sent. */
  autoAck?: true;
}

export interface ConsumerFaults {
  /** Runs once a consumer is subscribed, with its channel (e.g. cancel it behind the runtime's back). */
  afterSubscribe?: (ch: Channel, consumerTag: string) => Promise<void>;
}

export interface ConsumerHealth {
  queue: string;
  consuming: boolean;
  inFlight: number;
  counts: Record<Outcome["kind"] | "recycled", number>;
  /** Each interruption of intake: when it began and how long until consuming again (ms). */
  gaps: { at: number; ms: number }[];
  lastDeliveryAt: number | undefined;
}

export interface Consumer {
  health(): ConsumerHealth;
  /** Stops intake, waits for in-flight handlers (up to shutdownTimeoutMs), closes its channels. Idempotent. */
  stop(): Promise<void>;
}

export async function startConsumer(opts: ConsumerOptions): Promise<Consumer> {
  const schedule = opts.retrySchedule ?? RETRY_TIERS;
  if (schedule.length === 0) throw new Error("retrySchedule must have at least one tier");
  assertRetention(opts.retention, schedule);
  const log = opts.log ?? (() => {});
  const isTransient = opts.isTransient ?? ((e: unknown) => !(e instanceof PoisonMessageError));
  const resubscribeDelay = opts.resubscribeDelayMs ?? 1_500;
  const conn = opts.connection;
  await assertTopology(conn, consumerRequirements(opts.queue, schedule));

  const publisher = createConfirmPublisher(conn, {
    confirmTimeoutMs: opts.confirmTimeoutMs ?? 10_000,
    maxInFlight: opts.prefetch ?? 100,
    log,
  });
  const counts: ConsumerHealth["counts"] = {
    done: 0,
    rejected: 0,
    duplicate: 0,
    "duplicate-cache": 0,
    retried: 0,
    parked: 0,
    requeued: 0,
    recycled: 0,
  };
  const gaps: ConsumerHealth["gaps"] = [];
  let channel: Channel | undefined;
  let consumerTag: string | undefined;
  let stopping = false;
  let stopped: Promise<void> | undefined;
  let inFlight = 0;
  let lostAt: number | undefined;
  let lastDeliveryAt: number | undefined;
  let subscribing: Promise<void> | undefined;
  let watchdog: NodeJS.Timeout | undefined;
  let resubscribeTimer: NodeJS.Timeout | undefined;
  const idleWaiters: (() => void)[] = [];

  const report = (o: Outcome) => {
    counts[o.kind] += 1;
    try {
      opts.onOutcome?.(o);
    } catch {}
  };

  function subscribe(): Promise<void> {
    if (stopping || channel) return Promise.resolve();
    subscribing ??= doSubscribe().finally(() => {
      subscribing = undefined;
    });
    return subscribing;
  }

  async function doSubscribe(): Promise<void> {
    try {
      const ch = await conn.createChannel();
      ch.on("close", () => onChannelLost(ch));
      await ch.prefetch(opts.prefetch ?? 100);
      const noAck = opts.lab?.autoAck === true;
      const ok = await ch.consume(
        opts.queue,
        (msg) => {
          if (msg === null) {
            // Broker-side cancel (queue deleted, leader moved away in some versions): start over.
            log("warn", "consumer cancelled by the broker", { queue: opts.queue });
            void ch.close().catch(() => {});
            return;
          }
          void handle(ch, msg);
        },
        { noAck },
      );
      channel = ch;
      consumerTag = ok.consumerTag;
      await opts.faults?.afterSubscribe?.(ch, ok.consumerTag);
      if (lostAt !== undefined) {
        gaps.push({ at: lostAt, ms: Date.now() - lostAt });
        log("info", "consuming again", { queue: opts.queue, gapMs: Date.now() - lostAt });
        lostAt = undefined;
      }
    } catch (e) {
      log("warn", "subscribe failed; retrying", { queue: opts.queue, error: (e as Error).message });
      scheduleResubscribe();
    }
  }

  // A channel opened during a leader election can stay silent: consuming, yet never delivering while
  // the queue holds ready messages (shared notes). Idle with ready messages for a whole interval means
  // that channel is broken: close it and subscribe again.
  const watchdogMs = opts.silentChannelCheckMs ?? 15_000;
  async function checkSilentChannel(): Promise<void> {
    const ch = channel;
    if (!ch || stopping || inFlight > 0) return;
    if (lastDeliveryAt !== undefined && Date.now() - lastDeliveryAt < watchdogMs) return;
    const ready = await Promise.race([
      ch.checkQueue(opts.queue).then((q) => q.messageCount),
      new Promise<number>((r) => setTimeout(() => r(-1), 5_000).unref()),
    ]).catch(() => 0);
    if (channel !== ch || inFlight > 0 || stopping) return;
    if (ready !== 0 && (lastDeliveryAt === undefined || Date.now() - lastDeliveryAt >= watchdogMs)) {
      log("warn", "consumer channel silent while messages wait; recycling it", { queue: opts.queue, ready });
      counts.recycled += 1;
      await ch.close().catch(() => {});
    }
  }
  if (watchdogMs > 0) {
    watchdog = setInterval(() => void checkSilentChannel(), watchdogMs);
    watchdog.unref();
  }

  function onChannelLost(ch: Channel): void {
    if (channel !== ch) return;
    channel = undefined;
    consumerTag = undefined;
    lostAt ??= Date.now();
    if (!stopping) scheduleResubscribe();
  }

  function scheduleResubscribe(): void {
    if (stopping || resubscribeTimer) return;
    // On a live connection (channel-level failure) re-subscribe after the election window; on a lost
    // connection the connection's onConnect will call subscribe() when it is back.
    resubscribeTimer = setTimeout(() => {
      resubscribeTimer = undefined;
      if (conn.health().connected) void subscribe();
    }, resubscribeDelay);
  }

  const deliver = createDelivery({
    queue: opts.queue,
    consumerName: opts.consumerName,
    handlers: opts.handlers,
    transaction: opts.transaction,
    dedupCache: opts.dedupCache,
    schedule,
    isTransient,
    publisher,
    log,
    report,
    ...(opts.lab ? { lab: opts.lab } : {}),
  });

  const unsubscribeConnect = conn.onConnect((_m: ChannelModel) => void subscribe());
  const unsubscribeDisconnect = conn.onDisconnect(() => {
    if (channel) onChannelLost(channel);
    else lostAt ??= Date.now();
  });

  async function handle(ch: Channel, msg: ConsumeMessage): Promise<void> {
    inFlight += 1;
    lastDeliveryAt = Date.now();
    try {
      await deliver(ch, msg);
    } catch (e) {
      // Unexpected (a bug here, not in a handler): keep consuming; the broker will redeliver.
      log("error", "unexpected consumer failure", { error: (e as Error).message });
      report({ kind: "requeued", messageId: msg.properties.messageId, error: (e as Error).message });
      try {
        ch.nack(msg, false, true);
      } catch {}
    } finally {
      inFlight -= 1;
      if (inFlight === 0) for (const w of idleWaiters.splice(0)) w();
    }
  }

  await subscribe();

  return {
    health: () => ({
      queue: opts.queue,
      consuming: channel !== undefined && consumerTag !== undefined,
      inFlight,
      counts: { ...counts },
      gaps: [...gaps],
      lastDeliveryAt,
    }),
    stop() {
      stopped ??= (async () => {
        stopping = true;
        if (watchdog) clearInterval(watchdog);
        if (resubscribeTimer) clearTimeout(resubscribeTimer);
        unsubscribeConnect();
        unsubscribeDisconnect();
        const ch = channel;
        // 1. stop intake
        const tag = consumerTag;
        consumerTag = undefined;
        if (ch && tag) await ch.cancel(tag).catch(() => {});
        // 2. let in-flight handlers finish (their acks need the channel still open)
        if (inFlight > 0) {
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, opts.shutdownTimeoutMs ?? 10_000);
            idleWaiters.push(() => {
              clearTimeout(t);
              resolve();
            });
          });
        }
        // 3. close channels; the caller closes the connection afterwards.
        channel = undefined;
        await publisher.close();
        if (ch) await ch.close().catch(() => {});
      })();
      return stopped;
    },
  };
}

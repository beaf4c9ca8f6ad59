// The consumer runtime: a service gives typed handlers and a transaction runner; this decides each
// message's fate. Order per delivery: contract check -> (Redis early skip) -> one DB transaction holding
// the inbox claim and the handler's effect -> commit -> ack. A handler failure becomes a retry through the
// tiers or a parking; the consumer itself never stops on a bad message.
import type { EventPayload, EventType } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import type { Channel, ChannelModel, ConsumeMessage } from "amqplib";
import { createConfirmPublisher } from "./confirm-publisher.ts";
import type { BrokerConnection } from "./connection.ts";
import type { DedupCache } from "./dedup-cache.ts";
import { PoisonMessageError } from "./errors.ts";
import { type InboundEvent, type ParkReason, readInbound } from "./inbound.ts";
import { claimInbox, type TransactionRunner } from "./inbox.ts";
import type { Logger } from "./logger.ts";
import { parkTo, retryTo } from "./republish.ts";
import { assertRetention, type RetentionConfig } from "./retention.ts";
import { assertTopology, consumerRequirements, RETRY_TIERS, type RetryTier } from "./topology.ts";

/** void = done. A business rejection (insufficient stock...) is also a success for the message: the
 * handler has written its compensating event (outbox row) in the same tx, and the message is acked. */
export type HandlerResult = undefined | { rejected: string };

export type Handler<T extends EventType> = (
  event: InboundEvent<EventPayload<T>> & { type: T },
  tx: SqlTx,
) => Promise<HandlerResult | undefined | void>;

export type Handlers = { [T in EventType]?: Handler<T> };

export type Outcome =
  | { kind: "done" | "rejected" | "duplicate" | "duplicate-cache"; messageId: string; type: string }
  | {
      kind: "retried";
      messageId: string;
      type: string;
      tier: RetryTier;
      /** The attempt number the copy carries; not increased for an infrastructure failure. */
      attempt: number;
      error: string;
      /** The failure came before the handler ran (database unavailable): the attempt was not spent. */
      infrastructure: boolean;
    }
  | { kind: "parked"; messageId: string | undefined; reason: ParkReason; detail: string }
  | { kind: "requeued"; messageId: string | undefined; error: string };

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
      const ok = await ch.consume(opts.queue, (msg) => {
        if (msg === null) {
          // Broker-side cancel (queue deleted, leader moved away in some versions): start over.
          log("warn", "consumer cancelled by the broker", { queue: opts.queue });
          void ch.close().catch(() => {});
          return;
        }
        void handle(ch, msg);
      });
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

  const unsubscribeConnect = conn.onConnect((_m: ChannelModel) => void subscribe());
  const unsubscribeDisconnect = conn.onDisconnect(() => {
    if (channel) onChannelLost(channel);
    else lostAt ??= Date.now();
  });

  function ack(ch: Channel, msg: ConsumeMessage): void {
    try {
      ch.ack(msg);
    } catch (e) {
      // The channel died after commit: the broker redelivers and the inbox turns it into a no-op.
      log("warn", "ack lost with its channel; redelivery will be deduplicated", {
        error: (e as Error).message,
      });
    }
  }

  function requeue(ch: Channel, msg: ConsumeMessage, error: string): void {
    report({ kind: "requeued", messageId: msg.properties.messageId, error });
    try {
      ch.nack(msg, false, true);
    } catch {}
  }

  async function park(ch: Channel, msg: ConsumeMessage, reason: ParkReason, detail: string): Promise<void> {
    try {
      await parkTo(publisher, opts.queue, opts.consumerName, msg, reason, detail);
    } catch (e) {
      // Not parked: give it back to the broker (counts toward x-delivery-limit, whose dead-letter target
      // is the same parking lot).
      log("error", "parking failed; message requeued", { reason, error: (e as Error).message });
      return requeue(ch, msg, (e as Error).message);
    }
    log("warn", "message parked", { queue: opts.queue, messageId: msg.properties.messageId, reason, detail });
    report({ kind: "parked", messageId: msg.properties.messageId, reason, detail });
    ack(ch, msg);
  }

  async function retry(
    ch: Channel,
    msg: ConsumeMessage,
    type: string,
    id: string,
    tier: RetryTier,
    attempt: number,
    error: string,
    infrastructure: boolean,
  ): Promise<void> {
    try {
      await retryTo(publisher, opts.queue, msg, tier, attempt, error);
    } catch (pe) {
      log("error", "retry publish failed; message requeued", { error: (pe as Error).message });
      return requeue(ch, msg, (pe as Error).message);
    }
    report({ kind: "retried", messageId: id, type, tier, attempt, error, infrastructure });
    ack(ch, msg);
  }

  async function process(ch: Channel, msg: ConsumeMessage): Promise<void> {
    const inbound = readInbound(msg);
    if (!inbound.ok) return park(ch, msg, inbound.reason, inbound.detail);
    const ev = inbound.event;
    const id = ev.envelope.messageId;
    const handler = opts.handlers[ev.type] as Handler<EventType> | undefined;
    if (!handler) return park(ch, msg, "no-handler", `${opts.consumerName} has no handler for ${ev.type}`);

    if (opts.dedupCache && (await opts.dedupCache.isKnown(opts.consumerName, id))) {
      report({ kind: "duplicate-cache", messageId: id, type: ev.type });
      return ack(ch, msg);
    }
    let result: { dup: true } | { dup: false; r: HandlerResult | undefined | void };
    let handlerRan = false;
    try {
      result = await opts.transaction(async (tx) => {
        if (!(await claimInbox(tx, opts.consumerName, id, ev.type))) return { dup: true } as const;
        handlerRan = true;
        return { dup: false, r: await handler(ev as Parameters<Handler<EventType>>[0], tx) } as const;
      });
    } catch (e) {
      const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      if (!handlerRan) {
        // The database failed before the handler ran (down, pool exhausted): not the message's fault.
        // Retry without spending its attempts, so an outage longer than the tiers parks nothing; it
        // cycles through the tier it is on (at most every 30 s) until the database is back.
        const tier = schedule[Math.min(ev.attempt, schedule.length - 1)] as RetryTier;
        log("error", "database unavailable before the handler; retrying without counting", { error });
        return retry(ch, msg, ev.type, id, tier, ev.attempt, error, true);
      }
      if (!isTransient(e)) return park(ch, msg, "poison", error);
      if (ev.attempt >= schedule.length)
        return park(ch, msg, "attempts-exhausted", `${ev.attempt} retries; last: ${error}`);
      return retry(ch, msg, ev.type, id, schedule[ev.attempt] as RetryTier, ev.attempt + 1, error, false);
    }
    // Committed: now (and only now) the message may go.
    if (opts.dedupCache) await opts.dedupCache.remember(opts.consumerName, id);
    if (result.dup) report({ kind: "duplicate", messageId: id, type: ev.type });
    else if (result.r && "rejected" in result.r) report({ kind: "rejected", messageId: id, type: ev.type });
    else report({ kind: "done", messageId: id, type: ev.type });
    ack(ch, msg);
  }

  async function handle(ch: Channel, msg: ConsumeMessage): Promise<void> {
    inFlight += 1;
    lastDeliveryAt = Date.now();
    try {
      await process(ch, msg);
    } catch (e) {
      // Unexpected (a bug here, not in a handler): keep consuming; the broker will redeliver.
      log("error", "unexpected consumer failure", { error: (e as Error).message });
      requeue(ch, msg, (e as Error).message);
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

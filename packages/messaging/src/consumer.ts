// The consumer runtime: a service gives typed handlers, a transaction runner and (optionally) the parts
// it is composed of; each part defaults to the protection. The parts: subscription.ts keeps the
// subscription alive, watchdog.ts recycles a silent channel, delivery.ts decides the fate of each message
// and settle.ts records it. This file wires them, counts in-flight work and stops gracefully.
import type { SqlTx } from "@orderflow/db";
import { type Logger, silentLogger } from "@orderflow/logging";
import type { Channel, ConsumeMessage } from "amqplib";
import { type AckLedger, ackLedgers } from "./ack-ledger.ts";
import { createBatchDelivery } from "./batch-delivery.ts";
import { createConfirmPublisher } from "./confirm-publisher.ts";
import { markOutcome } from "./consumer-span.ts";
import type { Consumer, ConsumerHealth, ConsumerOptions, Outcome } from "./consumer-types.ts";
import { createDelivery, type DeliveryDeps } from "./delivery.ts";
import { PoisonMessageError } from "./errors.ts";
import { sqlInbox } from "./inbox.ts";
import { createIntake, type Intake } from "./intake.ts";
import type { ConfirmPublisher } from "./publisher-types.ts";
import { assertRetention } from "./retention.ts";
import { createSettle } from "./settle.ts";
import { keepSubscription, type Subscription } from "./subscription.ts";
import { assertTopology, consumerRequirements, RETRY_TIERS, type RetryTier } from "./topology.ts";
import { startWatchdog } from "./watchdog.ts";

export type {
  BatchHandler,
  BatchHandlers,
  Consumer,
  ConsumerFaults,
  ConsumerHealth,
  ConsumerOptions,
  Handler,
  HandlerResult,
  Handlers,
  Outcome,
} from "./consumer-types.ts";

const newCounts = (): ConsumerHealth["counts"] => ({
  done: 0,
  rejected: 0,
  duplicate: 0,
  "duplicate-cache": 0,
  "duplicate-conflict": 0,
  "cache-unconfirmed": 0,
  retried: 0,
  parked: 0,
  requeued: 0,
  recycled: 0,
});

async function stopConsumer(
  sub: Subscription,
  work: Intake,
  publisher: ConfirmPublisher,
  shutdownTimeoutMs: number,
): Promise<void> {
  // 1. stop intake
  const ch = await sub.stopIntake();
  // 2. let in-flight handlers finish (their acks need the channel still open)
  await work.drained(shutdownTimeoutMs);
  // 3. close channels; the caller closes the connection afterwards.
  await publisher.close();
  if (ch) await ch.close().catch(() => {});
}

/** What deciding and settling a delivery needs, from the options and the consumer's own parts. */
function deliveryDeps<Tx extends SqlTx>(
  opts: ConsumerOptions<Tx>,
  own: {
    schedule: readonly RetryTier[];
    log: Logger;
    counts: ConsumerHealth["counts"];
    publisher: ConfirmPublisher;
    ledger: (ch: Channel) => AckLedger;
  },
): DeliveryDeps<Tx> {
  const report = (o: Outcome) => {
    own.counts[o.kind] += 1;
    markOutcome(o); // on the delivery's span: report runs within it
    try {
      opts.onOutcome?.(o);
    } catch {}
  };
  const { queue, consumerName } = opts;
  const settle = createSettle({
    queue,
    consumerName,
    publisher: own.publisher,
    report,
    ledger: own.ledger,
  });
  return {
    queue,
    consumerName,
    handlers: opts.handlers,
    batchHandlers: opts.batchHandlers ?? {},
    transaction: opts.transaction,
    dedupCache: opts.dedupCache,
    dedupKey: opts.dedupKey ?? ((ev) => ev.envelope.messageId),
    inbox: opts.inbox ?? sqlInbox,
    schedule: own.schedule,
    isTransient: opts.isTransient ?? ((e: unknown) => !(e instanceof PoisonMessageError)),
    sequenceGapWaitMs: opts.sequenceGapWaitMs ?? 120_000,
    settle: (opts.settle ?? ((s) => s))(settle),
    log: own.log,
    report,
  };
}

export async function startConsumer<Tx extends SqlTx>(opts: ConsumerOptions<Tx>): Promise<Consumer> {
  const schedule = opts.retrySchedule ?? RETRY_TIERS;
  if (schedule.length === 0) throw new Error("retrySchedule must have at least one tier");
  assertRetention(opts.retention, schedule);
  const log: Logger = opts.log ?? silentLogger;
  const conn = opts.connection;
  await assertTopology(conn, consumerRequirements(opts.queue, schedule));
  const prefetch = opts.prefetch ?? 100;
  const publisher = createConfirmPublisher(conn, {
    confirmTimeoutMs: opts.confirmTimeoutMs ?? 10_000,
    maxInFlight: prefetch,
    recycleAfterNacks: 3,
    // The connection is the consumer's: recycling it would stop intake and redeliver every unacked message.
    recycle: "channel",
    log,
  });
  const counts = newCounts();
  const ledger = ackLedgers((e) => log.warn({ error: e.message }, "consumer.ack_lost"));
  const deps = deliveryDeps(opts, { schedule, log, counts, publisher, ledger });
  const work = createIntake({
    batchSize: opts.batchSize ?? 50,
    concurrency: opts.concurrency ?? 1,
    deliver: createDelivery(deps),
    deliverBatch: createBatchDelivery(deps, opts.batchStats),
  });
  let lastDeliveryAt: number | undefined;
  let stopping = false;
  const delivered = new WeakSet<Channel>();
  const onMessage = (ch: Channel, msg: ConsumeMessage) => {
    lastDeliveryAt = Date.now();
    delivered.add(ch);
    deps.settle.received(ch, msg);
    work.push(ch, msg);
  };
  const subLog = log.child({ queue: opts.queue });
  const sub = await keepSubscription({
    conn,
    queue: opts.queue,
    prefetch,
    resubscribeDelayMs: opts.resubscribeDelayMs ?? 1_500,
    log: subLog,
    faults: opts.faults,
    onMessage,
  });
  const stopWatchdog = startWatchdog({
    intervalMs: opts.silentChannelCheckMs ?? 15_000,
    queue: opts.queue,
    log: subLog,
    channel: () => sub.channel(),
    busy: () => stopping || work.count() > 0,
    lastDeliveryAt: () => lastDeliveryAt,
    onRecycle: () => {
      counts.recycled += 1;
    },
    ...(opts.singleActiveConsumer ? { hasDelivered: (ch: Channel) => delivered.has(ch) } : {}),
  });
  let stopped: Promise<void> | undefined;
  return {
    health: () => ({
      queue: opts.queue,
      consuming: sub.consuming(),
      inFlight: work.count(),
      counts: { ...counts },
      gaps: sub.gaps(),
      lastDeliveryAt,
    }),
    stop() {
      stopping = true;
      stopWatchdog();
      stopped ??= stopConsumer(sub, work, publisher, opts.shutdownTimeoutMs ?? 10_000);
      return stopped;
    },
  };
}

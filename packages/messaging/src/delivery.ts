// The fate of one delivery, decided in this order: contract check -> (Redis early skip) -> one DB
// transaction holding the inbox claim and the handler's effect -> commit -> ack. A handler failure
// becomes a retry through the tiers or a parking; nothing here stops the consumer.
import type { EventPayload, EventType } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import type { Channel, ConsumeMessage } from "amqplib";
import type { ConfirmPublisher } from "./confirm-publisher.ts";
import type { LabConsumerPitfalls } from "./consumer.ts";
import type { DedupCache } from "./dedup-cache.ts";
import { type InboundEvent, type ParkReason, readInbound } from "./inbound.ts";
import { claimInbox, type TransactionRunner } from "./inbox.ts";
import type { Logger } from "./logger.ts";
import { parkTo, retryTo } from "./republish.ts";
import type { RetryTier } from "./topology.ts";

/** void = done. A business rejection (insufficient stock...) is also a success for the message: the
 * handler has written its compensating event (outbox row) in the same tx, and the message is acked. */
export type HandlerResult = undefined | { rejected: string };

export type Handler<T extends EventType> = (
  event: InboundEvent<EventPayload<T>> & { type: T },
  tx: SqlTx,
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing is a plain "done"
) => Promise<HandlerResult | void>;

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

export interface DeliveryDeps {
  queue: string;
  consumerName: string;
  handlers: Handlers;
  transaction: TransactionRunner;
  dedupCache: DedupCache | undefined;
  schedule: readonly RetryTier[];
  isTransient: (e: unknown) => boolean;
  /** Confirm publisher for retries and parking. */
  publisher: ConfirmPublisher;
  log: Logger;
  report: (o: Outcome) => void;
  lab?: LabConsumerPitfalls;
}

/** Returns deliver(ch, msg): settles one delivery (ack, or nack with requeue when it cannot be moved). */
export function createDelivery(deps: DeliveryDeps): (ch: Channel, msg: ConsumeMessage) => Promise<void> {
  const { publisher, log, report, schedule, isTransient } = deps;

  const lab = deps.lab ?? {};
  function ack(ch: Channel, msg: ConsumeMessage): void {
    if (lab.autoAck) return; // the broker already forgot it when it sent it
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
    if (lab.autoAck) return; // nothing to give back: lost
    try {
      ch.nack(msg, false, true);
    } catch {}
  }

  async function park(ch: Channel, msg: ConsumeMessage, reason: ParkReason, detail: string): Promise<void> {
    try {
      await parkTo(publisher, deps.queue, deps.consumerName, msg, reason, detail);
    } catch (e) {
      // Not parked: give it back to the broker (counts toward x-delivery-limit, whose dead-letter target
      // is the same parking lot).
      log("error", "parking failed; message requeued", { reason, error: (e as Error).message });
      return requeue(ch, msg, (e as Error).message);
    }
    log("warn", "message parked", { queue: deps.queue, messageId: msg.properties.messageId, reason, detail });
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
      await retryTo(publisher, deps.queue, msg, tier, attempt, error);
    } catch (pe) {
      log("error", "retry publish failed; message requeued", { error: (pe as Error).message });
      return requeue(ch, msg, (pe as Error).message);
    }
    report({ kind: "retried", messageId: id, type, tier, attempt, error, infrastructure });
    ack(ch, msg);
  }

  async function deliver(ch: Channel, msg: ConsumeMessage): Promise<void> {
    const inbound = readInbound(msg);
    if (!inbound.ok) return park(ch, msg, inbound.reason, inbound.detail);
    const ev = inbound.event;
    const id = ev.envelope.messageId;
    // The inbox key: the message id (one per message). The lab's dedup-by-business-id pitfall keys on
    // the order instead, so an order's second message looks like a duplicate of its first.
    const dedupKey = lab.dedupKey ? lab.dedupKey(ev) : id;
    const handler = deps.handlers[ev.type] as Handler<EventType> | undefined;
    if (!handler) return park(ch, msg, "no-handler", `${deps.consumerName} has no handler for ${ev.type}`);

    if (deps.dedupCache && (await deps.dedupCache.isKnown(deps.consumerName, dedupKey))) {
      report({ kind: "duplicate-cache", messageId: id, type: ev.type });
      return ack(ch, msg);
    }
    let result:
      | { dup: true }
      | {
          dup: false; // biome-ignore lint/suspicious/noConfusingVoidType: what a handler may return
          r: HandlerResult | void;
        };
    let handlerRan = false;
    try {
      result = await deps.transaction(async (tx) => {
        if (lab.inbox !== false && !(await claimInbox(tx, deps.consumerName, dedupKey, ev.type)))
          return { dup: true } as const;
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
    if (deps.dedupCache) await deps.dedupCache.remember(deps.consumerName, dedupKey);
    if (result.dup) report({ kind: "duplicate", messageId: id, type: ev.type });
    else if (result.r && "rejected" in result.r) report({ kind: "rejected", messageId: id, type: ev.type });
    else report({ kind: "done", messageId: id, type: ev.type });
    ack(ch, msg);
  }

  return deliver;
}

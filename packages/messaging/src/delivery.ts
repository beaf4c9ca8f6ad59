// The fate of one delivery, decided in this order: contract check -> (Redis early skip) -> one DB
// transaction holding the inbox claim and the handler's effect -> commit -> ack. A handler failure
// becomes a retry through the tiers or a parking (settle.ts); nothing here stops the consumer.
import { type EventType, HEADERS } from "@orderflow/contracts";
import { isDataError, type RunTransaction, type SqlTx } from "@orderflow/db";
import type { Logger } from "@orderflow/logging";
import type { Channel, ConsumeMessage } from "amqplib";
import { openConsumerSpan } from "./consumer-span.ts";
import type { BatchHandlers, Handler, HandlerResult, Handlers, Outcome } from "./consumer-types.ts";
import type { DedupCache } from "./dedup-cache.ts";
import { type InboundEvent, readInbound } from "./inbound.ts";
import type { Inbox } from "./inbox.ts";
import type { Delivery, Settle } from "./settle.ts";
import { EXCHANGES, type RetryTier } from "./topology.ts";
import { OutOfTurn, takeTurn, waitForTurn } from "./turn.ts";

export interface DeliveryDeps<Tx extends SqlTx> {
  queue: string;
  consumerName: string;
  handlers: Handlers<Tx>;
  batchHandlers: BatchHandlers<Tx>;
  transaction: RunTransaction<Tx>;
  dedupCache: DedupCache | undefined;
  dedupKey: (event: InboundEvent) => string;
  inbox: Inbox;
  schedule: readonly RetryTier[];
  isTransient: (e: unknown) => boolean;
  /** How long an ordered message waits for the one it follows before it is parked (turn.ts). */
  sequenceGapWaitMs: number;
  settle: Settle;
  log: Logger;
  report: (o: Outcome) => void;
}

type Applied =
  | { ok: true; dup: false; result: HandlerResult }
  | { ok: true; dup: true; appliedHash: string | null }
  | { ok: false; error: string; cause: unknown; handlerRan: boolean };

/** A logger for one delivery: every line about it carries these four fields. */
function deliveryLog(log: Logger, queue: string, msg: ConsumeMessage): Logger {
  const p = msg.properties;
  const h = (p.headers ?? {}) as Record<string, unknown>;
  const correlationId = h[HEADERS.correlationId] ?? p.correlationId;
  return log.child({
    messageId: p.messageId,
    correlationId: correlationId === undefined ? undefined : String(correlationId),
    eventType: p.type,
    queue,
  });
}

/** The inbox claim and the handler in one transaction: both commit, or neither. */
async function applyOnce<Tx extends SqlTx>(
  deps: DeliveryDeps<Tx>,
  ev: InboundEvent,
  key: string,
  handler: Handler<EventType, Tx>,
): Promise<Applied> {
  let handlerRan = false;
  try {
    return await deps.transaction(async (tx) => {
      if (!(await deps.inbox.claim(tx, deps.consumerName, key, ev.type, ev.contentHash))) {
        const prior = await deps.inbox.recorded(tx, deps.consumerName, key);
        return { ok: true, dup: true, appliedHash: prior?.contentHash ?? null } as const;
      }
      // An ordered stream's copy under another message id is skipped as the duplicate it is.
      if (!(await takeTurn(deps.inbox, tx, deps.consumerName, ev)))
        return { ok: true, dup: true, appliedHash: null } as const;
      handlerRan = true;
      const r = await handler(ev as Parameters<Handler<EventType, Tx>>[0], tx);
      return { ok: true, dup: false, result: r ?? undefined } as const;
    });
  } catch (e) {
    const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return { ok: false, error, cause: e, handlerRan };
  }
}

/** The inbox row behind a cache hit, "absent", or "unknown" when the database cannot say (then the claim decides). */
async function confirmedByInbox<Tx extends SqlTx>(
  deps: DeliveryDeps<Tx>,
  key: string,
): Promise<{ contentHash: string | null } | "absent" | "unknown"> {
  try {
    return (await deps.transaction((tx) => deps.inbox.recorded(tx, deps.consumerName, key))) ?? "absent";
  } catch {
    return "unknown";
  }
}

/**
 * A duplicate is skipped either way (the first message under this id was applied). One whose body differs
 * from the applied one is not a redelivery but another message reusing the id: a producer bug or a forgery,
 * so it is counted and logged with both hashes instead of vanishing.
 */
function duplicateKind(d: Delivery, ev: InboundEvent, appliedHash: string | null) {
  if (appliedHash === null || appliedHash === ev.contentHash) return "duplicate" as const;
  d.log.warn({ appliedHash, receivedHash: ev.contentHash }, "consumer.duplicate_id_other_content");
  return "duplicate-conflict" as const;
}

function onFailure<Tx extends SqlTx>(
  deps: DeliveryDeps<Tx>,
  d: Delivery,
  ev: InboundEvent,
  f: Extract<Applied, { ok: false }>,
): Promise<void> {
  const { schedule, settle } = deps;
  const base = { type: ev.type, messageId: ev.envelope.messageId, error: f.error };
  if (f.cause instanceof OutOfTurn) return waitForTurn(deps, d, ev, f.cause);
  // PostgreSQL refused the message's own values (a data error, wherever it happened): no retry can help.
  if (isDataError(f.cause)) return settle.park(d, "poison", f.error);
  if (!f.handlerRan) {
    // The database failed before the handler ran (down, pool exhausted): not the message's fault.
    // Retry without spending its attempts, so an outage longer than the tiers parks nothing; it
    // cycles through the tier it is on (at most every 30 s) until the database is back.
    const tier = schedule[Math.min(ev.attempt, schedule.length - 1)] as RetryTier;
    d.log.error({ error: f.error }, "consumer.database_unavailable_retry_uncounted");
    return settle.retry(d, { ...base, tier, attempt: ev.attempt, infrastructure: true });
  }
  if (!deps.isTransient(f.cause)) return settle.park(d, "poison", f.error);
  if (ev.attempt >= schedule.length)
    return settle.park(d, "attempts-exhausted", `${ev.attempt} retries; last: ${f.error}`);
  const tier = schedule[ev.attempt] as RetryTier;
  return settle.retry(d, { ...base, tier, attempt: ev.attempt + 1, infrastructure: false });
}

/**
 * Where a delivery came from decides what it may claim to be. Through orderflow.events its routing key
 * must be its type: the broker lets each service user publish only keys under its own name (topic
 * permissions), so a type the publisher does not own cannot arrive that way. Through the default exchange
 * under this queue's own name it is one of this consumer's retries coming back from its tier (or an
 * operator's redrive). Anything else, such as another service's user stamping a foreign type on a key it
 * owns, is parked.
 */
function misrouted(msg: ConsumeMessage, type: string, queue: string): string | undefined {
  const { exchange, routingKey } = msg.fields;
  if (exchange === EXCHANGES.events && routingKey === type) return undefined;
  if (exchange === "" && routingKey === queue) return undefined;
  return `type ${type} arrived through exchange "${exchange}" with routing key "${routingKey}"`;
}

/** A delivery that passed the checks: what the transaction applies. */
export interface Prepared<Tx extends SqlTx> {
  d: Delivery;
  ev: InboundEvent;
  key: string;
  handler: Handler<EventType, Tx>;
}

/**
 * The checks before any transaction: contract, handler, route, then the Redis early skip. Returns what to
 * apply, or undefined when the delivery was settled here (parked, or skipped as a confirmed duplicate).
 */
export async function prepare<Tx extends SqlTx>(
  deps: DeliveryDeps<Tx>,
  d: Delivery,
): Promise<Prepared<Tx> | undefined> {
  const { settle, report } = deps;
  const inbound = readInbound(d.msg);
  if (!inbound.ok) return void (await settle.park(d, inbound.reason, inbound.detail));
  const ev = inbound.event;
  const id = ev.envelope.messageId;
  const handler = deps.handlers[ev.type] as Handler<EventType, Tx> | undefined;
  if (!handler)
    return void (await settle.park(d, "no-handler", `${deps.consumerName} has no handler for ${ev.type}`));
  const route = misrouted(d.msg, ev.type, deps.queue);
  if (route) return void (await settle.park(d, "misrouted", route));
  const key = deps.dedupKey(ev);
  if (deps.dedupCache && (await deps.dedupCache.isKnown(deps.consumerName, key))) {
    // Redis only hints; the inbox decides whether a message may be dropped as applied.
    const prior = await confirmedByInbox(deps, key);
    if (typeof prior === "object") {
      const kind =
        duplicateKind(d, ev, prior.contentHash) === "duplicate" ? "duplicate-cache" : "duplicate-conflict";
      report({ kind, messageId: id, type: ev.type });
      settle.ack(d);
      return undefined;
    }
    if (prior === "absent") {
      d.log.warn({ key }, "consumer.dedup_cache_hit_not_in_inbox");
      report({ kind: "cache-unconfirmed", messageId: id, type: ev.type });
    }
  }
  return { d, ev, key, handler };
}

/** After the commit (and only then) the message may go: report it and ack it (remembered in Redis first). */
export function reportApplied<Tx extends SqlTx>(
  deps: DeliveryDeps<Tx>,
  p: Prepared<Tx>,
  applied: Extract<Applied, { ok: true }>,
): void {
  const kind = applied.dup
    ? duplicateKind(p.d, p.ev, applied.appliedHash)
    : applied.result && "rejected" in applied.result
      ? "rejected"
      : "done";
  deps.report({ kind, messageId: p.ev.envelope.messageId, type: p.ev.type });
  deps.settle.ack(p.d);
}

/** One message, one transaction: applied and acked, or sent to its retry tier or the parking lot. */
export async function applyAlone<Tx extends SqlTx>(deps: DeliveryDeps<Tx>, p: Prepared<Tx>): Promise<void> {
  const applied = await applyOnce(deps, p.ev, p.key, p.handler);
  if (!applied.ok) return onFailure(deps, p.d, p.ev, applied);
  if (deps.dedupCache) await deps.dedupCache.remember(deps.consumerName, p.key);
  reportApplied(deps, p, applied);
}

export type { Applied };

/** A delivery and its logger (every line about it carries messageId, correlationId, eventType, queue). */
export const toDelivery = (
  deps: { log: Logger; queue: string },
  ch: Channel,
  msg: ConsumeMessage,
): Delivery => ({
  ch,
  msg,
  log: deliveryLog(deps.log, deps.queue, msg),
});

/** A bug here, not in a handler: keep consuming; the broker will redeliver. */
export function onUnexpected<Tx extends SqlTx>(deps: DeliveryDeps<Tx>, d: Delivery, e: unknown): void {
  d.log.error({ error: (e as Error).message }, "consumer.unexpected_failure");
  deps.settle.requeue(d, (e as Error).message); // a reject: counts toward x-delivery-limit (see settle.ts)
}

/** Returns deliver(ch, msg): settles one delivery in its own transaction. */
export function createDelivery<Tx extends SqlTx>(
  deps: DeliveryDeps<Tx>,
): (ch: Channel, msg: ConsumeMessage) => Promise<void> {
  return async (ch, msg) => {
    const d = toDelivery(deps, ch, msg);
    const span = openConsumerSpan(deps.queue, msg);
    try {
      await span.run(async () => {
        const p = await prepare(deps, d);
        if (p) await applyAlone(deps, p);
      });
    } catch (e) {
      span.run(() => onUnexpected(deps, d, e));
    } finally {
      span.end();
    }
  };
}

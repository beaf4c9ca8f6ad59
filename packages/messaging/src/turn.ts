// An ordered stream's turn at the consumer. A message with x-ordering-key and x-sequence is applied only
// when its number is the next one this consumer has not applied for its key (inbox_sequence, in the same
// transaction as its effect). A lower number is a copy and is skipped. A higher one arrived before a message
// it follows (retried, redelivered, or taken by another instance): its transaction rolls back and it goes
// round the first retry tier, without spending an attempt, until the gap closes. After
// `sequenceGapWaitMs` it is parked as `sequence-gap`, and redriving it once the gap is filled resumes
// the stream in order.
import type { SqlTx } from "@orderflow/db";
import type { InboundEvent } from "./inbound.ts";
import type { Inbox } from "./inbox.ts";
import type { Delivery, Settle } from "./settle.ts";
import type { RetryTier } from "./topology.ts";

/** When the message first found its turn not yet come (epoch ms), carried by its copies. */
export const TURN_WAIT_HEADER = "x-turn-wait-since";

/** Thrown inside the transaction when a message is early: nothing it did commits. */
export class OutOfTurn extends Error {
  constructor(
    readonly key: string,
    readonly sequence: number,
  ) {
    super(`sequence ${sequence} of ${key} arrived before the message it follows`);
    this.name = "OutOfTurn";
  }
}

/** Inside `tx`, after the inbox claim: true to apply, false for a copy; throws OutOfTurn when early. */
export async function takeTurn(
  inbox: Inbox,
  tx: SqlTx,
  consumer: string,
  ev: Pick<InboundEvent, "stream">,
): Promise<boolean> {
  if (!ev.stream) return true;
  const turn = await inbox.takeTurn(tx, consumer, ev.stream.key, ev.stream.sequence);
  if (turn === "early") throw new OutOfTurn(ev.stream.key, ev.stream.sequence);
  return turn === "apply";
}

/** An early message: round the first tier again, or parked once it has waited its bound. */
export function waitForTurn(
  deps: { settle: Settle; schedule: readonly RetryTier[]; sequenceGapWaitMs: number },
  d: Delivery,
  ev: InboundEvent,
  early: OutOfTurn,
  now = Date.now(),
): Promise<void> {
  const carried = Number(ev.headers[TURN_WAIT_HEADER]);
  const since = Number.isSafeInteger(carried) && carried > 0 && carried <= now ? carried : now;
  const waited = now - since;
  if (waited >= deps.sequenceGapWaitMs)
    return deps.settle.park(d, "sequence-gap", `${early.message}; waited ${Math.round(waited / 1000)} s`);
  d.log.info({ key: early.key, sequence: early.sequence, waitedMs: waited }, "consumer.out_of_turn_wait");
  return deps.settle.retry(d, {
    type: ev.type,
    messageId: ev.envelope.messageId,
    tier: deps.schedule[0] as RetryTier,
    attempt: ev.attempt,
    error: early.message,
    infrastructure: true,
    headers: { [TURN_WAIT_HEADER]: since },
  });
}

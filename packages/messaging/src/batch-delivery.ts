// Several deliveries, one transaction: what the prefetch holds when a transaction slot frees up is
// applied together (one inbox insert for the batch; the handlers in delivery order, or, for types with a
// set-based handler, grouped as batch-plan.ts allows; one commit), then acked together. A failure
// anywhere in the batch rolls it all back and splits it: each message is then applied alone, in
// delivery order, so only the failing one goes to its retry tier or the parking lot and the others
// commit as if they had come one by one. Messages for one order keep their order: a cancel delivered
// behind its create is applied behind it, in the batch or after the split. An ordered stream's message
// that is early (turn.ts) does not split the batch: it gives its claim back, the rest commits, and it is
// then applied alone, where it may wait for its turn. After a retry or a failover an early message sits
// in every batch that holds its key, and splitting each of them would apply it message by message.
import type { EventType } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import type { Channel, ConsumeMessage } from "amqplib";
import { batchPlan } from "./batch-plan.ts";
import { type ConsumerSpan, openConsumerSpan } from "./consumer-span.ts";
import type { BatchHandler, BatchStats } from "./consumer-types.ts";
import {
  type Applied,
  applyAlone,
  type DeliveryDeps,
  onUnexpected,
  type Prepared,
  prepare,
  reportApplied,
  toDelivery,
} from "./delivery.ts";
import type { Inbox, InboxEntry } from "./inbox.ts";
import { aggregateOf } from "./intake.ts";
import type { Delivery } from "./settle.ts";
import { OutOfTurn, takeTurn } from "./turn.ts";

/** One delivery of the batch and its span. */
type Entry = { d: Delivery; span: ConsumerSpan };
type Item<Tx extends SqlTx> = Prepared<Tx> & { entry: Entry };
type Done = Extract<Applied, { ok: true }>;

/** claimMany when the inbox has it, else key by key; true per entry this transaction claimed first. */
async function claimAll(inbox: Inbox, tx: SqlTx, consumer: string, entries: InboxEntry[]) {
  const claimed = inbox.claimMany
    ? await inbox.claimMany(tx, consumer, entries)
    : new Set(
        (
          await Promise.all(
            entries.map(async (e) =>
              (await inbox.claim(tx, consumer, e.key, e.messageType, e.contentHash)) ? e.key : undefined,
            ),
          )
        ).filter((k): k is string => k !== undefined),
      );
  // The same key twice in one batch (a redelivered copy beside its retry): the first one claims it.
  const seen = new Set<string>();
  return entries.map((e) => {
    const first = claimed.has(e.key) && !seen.has(e.key);
    seen.add(e.key);
    return first;
  });
}

/** What a batch's transaction settled (one result per item), and the items it left to apply alone. */
interface Together {
  out: (Done | undefined)[];
  later: Set<number>;
}

/** The item's turn inside `tx`: true to apply, false for a copy, "early" when the inbox can defer it. */
async function turnIn<Tx extends SqlTx>(deps: DeliveryDeps<Tx>, tx: SqlTx, item: Item<Tx>) {
  try {
    return await takeTurn(deps.inbox, tx, deps.consumerName, item.ev);
  } catch (e) {
    if (e instanceof OutOfTurn && deps.inbox.unclaim) return "early" as const;
    throw e; // without unclaim, an early one splits the batch
  }
}

async function applyTogether<Tx extends SqlTx>(deps: DeliveryDeps<Tx>, items: Item<Tx>[]): Promise<Together> {
  return deps.transaction(async (tx) => {
    const entries = items.map((i) => ({ key: i.key, messageType: i.ev.type, contentHash: i.ev.contentHash }));
    const first = await claimAll(deps.inbox, tx, deps.consumerName, entries);
    const out: (Done | undefined)[] = new Array(items.length);
    const fresh: number[] = [];
    const later = new Set<number>();
    const given = new Set<string>();
    // Turns are taken key by key (in delivery order within a key), so two instances' batches lock the
    // keys' inbox_sequence rows in one order and never deadlock. An early one gives its claim back and
    // is applied after the batch.
    const byKey = [...items.keys()].sort((a, b) => {
      const ka = (items[a] as Item<Tx>).ev.stream?.key ?? "";
      const kb = (items[b] as Item<Tx>).ev.stream?.key ?? "";
      return ka < kb ? -1 : ka > kb ? 1 : a - b;
    });
    for (const n of byKey) {
      const item = items[n] as Item<Tx>;
      const turn = first[n] ? await turnIn(deps, tx, item) : undefined;
      if (turn === "early" || (!first[n] && given.has(item.key))) {
        // A copy of a message left for later is not a duplicate of anything applied: it goes later too.
        if (turn === "early") given.add(item.key);
        later.add(n);
        continue;
      }
      if (turn === true) {
        fresh.push(n);
        continue;
      }
      if (turn === false) {
        out[n] = { ok: true, dup: true, appliedHash: null };
        continue;
      }
      const prior = await deps.inbox.recorded(tx, deps.consumerName, item.key);
      out[n] = { ok: true, dup: true, appliedHash: prior?.contentHash ?? null };
    }
    if (given.size > 0) await deps.inbox.unclaim?.(tx, deps.consumerName, [...given]);
    fresh.sort((a, b) => a - b); // the handlers run in delivery order
    const plan = batchPlan(
      fresh.map((n) => {
        const item = items[n] as Item<Tx>;
        return {
          type: item.ev.type,
          key: aggregateOf(item.ev.headers),
          batchable: !!deps.batchHandlers[item.ev.type],
        };
      }),
    );
    for (const group of plan) {
      const members = group.map((g) => fresh[g] as number);
      const firstItem = items[members[0] as number] as Item<Tx>;
      const many = deps.batchHandlers[firstItem.ev.type] as BatchHandler<EventType, Tx> | undefined;
      if (members.length > 1 && many) {
        const events = members.map((n) => (items[n] as Item<Tx>).ev) as Parameters<typeof many>[0];
        const within = <R>(i: number, fn: () => R): R =>
          (items[members[i] as number] as Item<Tx>).entry.span.run(fn);
        const results = await many(events, tx, within);
        // A result short would leave a delivery "done" that nothing applied: fail, and the batch splits.
        if (results.length !== events.length)
          throw new Error(
            `${firstItem.ev.type}: set-based handler returned ${results.length} results for ${events.length} events`,
          );
        for (const [i, n] of members.entries())
          out[n] = { ok: true, dup: false, result: results[i] ?? undefined };
        continue;
      }
      for (const n of members) {
        const item = items[n] as Item<Tx>;
        // Within its own span: the handler's statements and the outbox rows it writes join its order's trace.
        const r = await item.entry.span.run(() =>
          item.handler(item.ev as Parameters<typeof item.handler>[0], tx),
        );
        out[n] = { ok: true, dup: false, result: r ?? undefined };
      }
    }
    return { out, later };
  });
}

/** Returns deliverBatch(ch, msgs): settles every delivery of `msgs` (all from channel `ch`). */
export function createBatchDelivery<Tx extends SqlTx>(
  deps: DeliveryDeps<Tx>,
  stats: BatchStats = {},
): (ch: Channel, msgs: ConsumeMessage[]) => Promise<void> {
  return async (ch, msgs) => {
    const all: Entry[] = msgs.map((msg) => ({
      d: toDelivery(deps, ch, msg),
      span: openConsumerSpan(deps.queue, msg),
    }));
    // Every delivery settled so far (acked, retried, parked, skipped): an unexpected failure later in the
    // batch gives back only the others. Rejecting one already acked would requeue committed work, or
    // close the channel once its ack had gone out.
    const settled = new Set<Entry>();
    const applyEach = async (list: Item<Tx>[]) => {
      for (const item of list) {
        await item.entry.span.run(() => applyAlone(deps, item));
        settled.add(item.entry);
      }
    };
    try {
      // The checks have no order to keep (parking and cache hits settle on their own): run them together.
      const checked = await Promise.all(all.map((a) => a.span.run(() => prepare(deps, a.d))));
      const items: Item<Tx>[] = [];
      for (const [n, p] of checked.entries()) {
        const a = all[n] as Entry;
        if (p) items.push({ ...p, entry: a });
        else settled.add(a);
      }
      if (items.length === 1) await applyEach(items);
      else if (items.length > 1) {
        let done: Together | undefined;
        try {
          done = await applyTogether(deps, items);
        } catch (e) {
          const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
          stats.onSplit?.(items.length, error);
          deps.log.warn({ size: items.length, error }, "consumer.batch_split");
        }
        if (done) {
          const { out, later } = done;
          const committed = items.filter((_, n) => !later.has(n));
          const cache = deps.dedupCache;
          if (cache) await Promise.all(committed.map((i) => cache.remember(deps.consumerName, i.key)));
          for (const [n, item] of items.entries()) {
            if (later.has(n)) continue;
            item.entry.span.run(() => reportApplied(deps, item, out[n] as Done));
            settled.add(item.entry);
          }
          await applyEach(items.filter((_, n) => later.has(n)));
        } else await applyEach(items);
      }
      for (const a of all) settled.add(a);
    } catch (e) {
      for (const a of all) if (!settled.has(a)) a.span.run(() => onUnexpected(deps, a.d, e));
    } finally {
      for (const a of all) a.span.end();
    }
  };
}

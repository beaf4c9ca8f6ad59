// The broker-level verdict of a partition scenario, after the total-queue check of RabbitMQ's Jepsen
// suite: what the probe published, what the broker confirmed, and what came out of the queue. A
// confirmed message must come out (else lost); an unconfirmed one may or may not (recovered when it
// does); nothing may come out that was never published (unexpected); a message may come out twice
// (duplicated: at-least-once delivery allows it, the inboxes absorb it).

/** How a publish ended: the broker confirmed it, refused it (nack), or the probe never heard back. */
export type PublishOutcome = "confirmed" | "nacked" | "unconfirmed";

export interface BrokerCounts {
  published: number;
  confirmed: number;
  /** Nacked or never answered: the publisher could not count on these. */
  unconfirmed: number;
  /** Confirmed and delivered at least once. */
  delivered: number;
  /** Confirmed and never delivered: the broker broke its promise. */
  lost: number;
  /** Messages delivered more than once (each counted once). */
  duplicated: number;
  /** Delivered, but never published by the probe. */
  unexpected: number;
  /** Unconfirmed, yet delivered. */
  recovered: number;
  /** Unconfirmed and never delivered: allowed, the publisher knew. */
  unconfirmedGone: number;
}

/** Counts each published message by its outcome against the ids delivered (in any order, repeats kept). */
export function tallyBroker(
  published: ReadonlyMap<string, PublishOutcome>,
  delivered: readonly string[],
): BrokerCounts {
  const times = new Map<string, number>();
  for (const id of delivered) times.set(id, (times.get(id) ?? 0) + 1);
  const c: BrokerCounts = {
    published: published.size,
    confirmed: 0,
    unconfirmed: 0,
    delivered: 0,
    lost: 0,
    duplicated: 0,
    unexpected: 0,
    recovered: 0,
    unconfirmedGone: 0,
  };
  for (const [id, outcome] of published) {
    const n = times.get(id) ?? 0;
    if (n > 1) c.duplicated++;
    if (outcome === "confirmed") {
      c.confirmed++;
      if (n > 0) c.delivered++;
      else c.lost++;
    } else {
      c.unconfirmed++;
      if (n > 0) c.recovered++;
      else c.unconfirmedGone++;
    }
  }
  for (const id of times.keys()) if (!published.has(id)) c.unexpected++;
  return c;
}

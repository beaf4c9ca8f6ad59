// What the plain consumer saw of one run, counted by message id, and what that says about loss and
// duplication. Pure: the section feeds it deliveries and the contender's own counts.

export interface Tally {
  /** One delivery of `messageId` at `at` (ms, the bench process's clock). */
  record(messageId: string | undefined, at: number): void;
  /** Distinct message ids delivered. */
  readonly distinct: number;
  /** Every delivery, a redelivery or a second publish included. */
  readonly deliveries: number;
  /** When `messageId` was first delivered, if it was. */
  firstAt(messageId: string): number | undefined;
}

export function createTally(): Tally {
  const first = new Map<string, number>();
  let deliveries = 0;
  return {
    record(id, at) {
      deliveries++;
      if (id !== undefined && !first.has(id)) first.set(id, at);
    },
    get distinct() {
      return first.size;
    },
    get deliveries() {
      return deliveries;
    },
    firstAt: (id) => first.get(id),
  };
}

export interface RunCounts {
  /** Events committed by the run (the backlog, or the open-model writes that committed). */
  committed: number;
  /** Events still in the contender's store after it stopped: late, not lost. */
  pending: number;
  distinct: number;
  deliveries: number;
}

/**
 * Lost: committed, no longer pending in the contender's store, and never delivered. Duplicated: every
 * delivery past the first of its message id. A run cut short by its time bound leaves events pending;
 * those are neither.
 */
export function lossAndDuplicates(c: RunCounts): { lost: number; duplicated: number } {
  return {
    lost: Math.max(0, c.committed - c.distinct - c.pending),
    duplicated: c.deliveries - c.distinct,
  };
}

/**
 * Commit-to-delivery latencies of the committed ids, in ms; an event not delivered within the run's
 * drain window counts as Infinity, so a contender that fell behind shows a p99 of "n/a", not the p99 of
 * the events it managed.
 */
export function commitToDelivery(committedAt: ReadonlyMap<string, number>, tally: Tally): number[] {
  const out: number[] = [];
  for (const [id, at] of committedAt) {
    const got = tally.firstAt(id);
    out.push(got === undefined ? Number.POSITIVE_INFINITY : got - at);
  }
  return out;
}

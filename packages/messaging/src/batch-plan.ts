// Which deliveries of a batch one set-based handler applies together, and in what order the groups run.
// Pure, so the ordering rule is tested on its own (test/batch-plan.test.ts).
//
// The order consumer's replies arrive mixed (inventory.reserved, points.granted, ... for different
// orders); run one by one, each costs its own round trips, and under load a batch of 50 took 250-500 ms.
// Grouping by type lets one statement apply all of a type. The rule keeps what must stay in order:
// - two messages about the same aggregate (the `x-aggregate-id` header the outbox sets) keep their
//   order: the later one goes in a later round (a cancel behind its create);
// - a message whose type has no set-based handler, or that names no aggregate, is a barrier: it runs
//   alone, after everything before it and before everything after it;
// - inside one round, messages of one type keep their delivery order, and the types run in the order
//   they first appear. Messages about different aggregates may change places across types: each step
//   touches its own aggregate's rows, and the broker gives no order across aggregates either.

export interface PlanItem {
  type: string;
  /** The aggregate it is about; undefined = unknown (a barrier). */
  key: string | undefined;
  /** Whether its type has a set-based handler. */
  batchable: boolean;
}

/** Groups of indexes into `items`, in the order they must run; a group of several is one set-based call. */
export function batchPlan(items: readonly PlanItem[]): number[][] {
  const out: number[][] = [];
  let run: number[] = [];
  const flush = () => {
    const round = new Map<string, number>();
    const rounds: Map<string, number[]>[] = [];
    for (const i of run) {
      const it = items[i] as PlanItem;
      const r = round.get(it.key as string) ?? 0;
      round.set(it.key as string, r + 1);
      const byType = rounds[r] ?? new Map<string, number[]>();
      rounds[r] = byType;
      const group = byType.get(it.type) ?? [];
      byType.set(it.type, group);
      group.push(i);
    }
    // A Map iterates in insertion order: each round's types in the order they first appeared.
    for (const byType of rounds) out.push(...byType.values());
    run = [];
  };
  for (const [i, it] of items.entries()) {
    if (it.batchable && it.key !== undefined) run.push(i);
    else {
      flush();
      out.push([i]);
    }
  }
  flush();
  return out;
}

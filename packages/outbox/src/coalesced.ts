// One bookkeeping statement at a time per relay (marking confirmed rows sent, releasing leased rows the
// fast path could not take): the ids handed in while one runs join the next, so under load four fast-path
// batches confirmed at once cost one UPDATE and one commit instead of four, and commits arriving while
// the broker is away cost one release per round, not one each. Each caller still resolves only once its
// own ids went through (or the statement failed), so what it does afterwards is as before.
export interface Coalesced {
  run(ids: string[]): Promise<void>;
}

export function coalesced(statement: (ids: string[]) => Promise<unknown>): Coalesced {
  type Waiter = { ids: string[]; resolve: () => void; reject: (e: unknown) => void };
  let waiting: Waiter[] = [];
  let busy = false;
  const drain = async () => {
    busy = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        await statement(batch.flatMap((w) => w.ids));
        for (const w of batch) w.resolve();
      } catch (e) {
        for (const w of batch) w.reject(e);
      }
    }
    busy = false;
  };
  return {
    run(ids) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ ids, resolve, reject });
        if (!busy) void drain();
      });
    },
  };
}

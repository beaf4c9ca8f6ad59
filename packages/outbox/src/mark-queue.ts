// Marking confirmed rows sent, one statement at a time per relay: batches confirmed while a mark is in
// flight join the next one, so under load four fast-path batches confirmed at once cost one UPDATE and one
// commit instead of four. Each caller still resolves only once its own rows are marked (or the mark has
// failed), so what it records afterwards is as before.
export interface MarkQueue {
  mark(ids: string[]): Promise<void>;
}

export function createMarkQueue(markAll: (ids: string[]) => Promise<unknown>): MarkQueue {
  type Waiter = { ids: string[]; resolve: () => void; reject: (e: unknown) => void };
  let waiting: Waiter[] = [];
  let busy = false;
  const drain = async () => {
    busy = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        await markAll(batch.flatMap((w) => w.ids));
        for (const w of batch) w.resolve();
      } catch (e) {
        for (const w of batch) w.reject(e);
      }
    }
    busy = false;
  };
  return {
    mark(ids) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ ids, resolve, reject });
        if (!busy) void drain();
      });
    },
  };
}

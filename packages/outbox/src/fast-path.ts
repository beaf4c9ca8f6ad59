// The after-commit fast path: a transaction's rows are claimed by id and published right after its
// commit, without waiting for the sweep. Commits that arrive while every fast-path slot is busy wait here
// and leave together as one claim and one publish window, so under load the fast path batches instead of
// publishing row by row. Bounded: past the bound the rows are just as safe in the table, and the sweep
// takes them in batches.
import { publishAndRecord, type RelayParts } from "./record-outcomes.ts";

export interface FastPath {
  /** False when the rows were not taken (the caller wakes the sweep instead). */
  offer(messageIds: string[]): boolean;
}

export function createFastPath(
  p: RelayParts,
  running: () => boolean,
  track: <T>(work: Promise<T>) => Promise<T>,
): FastPath {
  const queue: string[] = [];
  let inFlight = 0;
  const pump = (): void => {
    while (running() && inFlight < p.cfg.fastPathConcurrency && queue.length > 0) {
      const ids = queue.splice(0, p.cfg.batchSize);
      inFlight++;
      void track(
        p.claim
          .byIds(p.pool, ids, p.cfg.leaseMs)
          .then((rows) => (rows.length > 0 ? publishAndRecord(p, rows, "fast") : undefined)),
      )
        .catch((e) =>
          p.log.error(
            { error: (e as Error).message, count: ids.length, messageIds: ids.slice(0, 5) },
            "relay.fast_path_error",
          ),
        )
        .finally(() => {
          inFlight--;
          pump();
        });
    }
  };
  return {
    offer(messageIds) {
      if (queue.length + messageIds.length > p.cfg.batchSize * 10) return false;
      queue.push(...messageIds);
      pump();
      return true;
    },
  };
}

// The after-commit fast path: a transaction's rows are published right after its commit, without waiting
// for the sweep: claimed by id first, or not at all when they were inserted already leased
// (insertLeasedRows). Commits that arrive while every fast-path slot is busy wait here and leave together
// as one publish window, so under load the fast path batches instead of publishing row by row. Bounded:
// past the bound the rows are just as safe in the table, and the sweep takes them in batches.
import { publishAndRecord, type RelayParts } from "./record-outcomes.ts";
import type { ClaimedRow } from "./types.ts";

export interface FastPath {
  /** False when the rows were not taken (the caller wakes the sweep instead). */
  offer(messageIds: string[]): boolean;
  /** The same for rows leased at insert: false when not taken (the caller releases their lease). */
  offerLeased(rows: ClaimedRow[]): boolean;
  /** Takes back the leased rows not yet being published (at stop, so their lease can be released). */
  takeBackLeased(): ClaimedRow[];
}

export function createFastPath(
  p: RelayParts,
  running: () => boolean,
  track: <T>(work: Promise<T>) => Promise<T>,
): FastPath {
  const queue: string[] = [];
  const leased: ClaimedRow[] = [];
  const bound = p.cfg.batchSize * 10;
  let inFlight = 0;
  // Leased rows first: they are already claimed, and their lease runs.
  const next = (): { ids: string[]; work: Promise<unknown> } => {
    if (leased.length > 0) {
      const rows = leased.splice(0, p.cfg.batchSize);
      return { ids: rows.map((r) => r.messageId), work: publishAndRecord(p, rows, "fast") };
    }
    const ids = queue.splice(0, p.cfg.batchSize);
    const work = p.claim
      .byIds(p.pool, ids, p.cfg.leaseMs)
      .then((rows) => (rows.length > 0 ? publishAndRecord(p, rows, "fast") : undefined));
    return { ids, work };
  };
  const pump = (): void => {
    while (running() && inFlight < p.cfg.fastPathConcurrency && queue.length + leased.length > 0) {
      inFlight++;
      const { ids, work } = next();
      void track(work)
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
      if (queue.length + leased.length + messageIds.length > bound) return false;
      queue.push(...messageIds);
      pump();
      return true;
    },
    offerLeased(rows) {
      if (queue.length + leased.length + rows.length > bound) return false;
      leased.push(...rows);
      pump();
      return true;
    },
    takeBackLeased: () => leased.splice(0),
  };
}

// One instance at a time for a periodic job (the archiver, reconciliation), however many instances share
// the database: an advisory lock (pg_try_advisory_lock) held by a connection of its own for the run. An
// instance that finds the lock taken skips its turn, since the holder is doing that work; a holder that
// dies loses the lock with its connection, so the next turn of any instance takes over.
import type pg from "pg";

export type ExclusiveOutcome<T> = { ran: true; value: T } | { ran: false };

/** Runs `fn` unless another holder of `job`'s lock (any process on this database) is running it now. */
export type RunExclusive = <T>(job: string, fn: () => Promise<T>) => Promise<ExclusiveOutcome<T>>;

export function pgExclusive(pool: pg.Pool): RunExclusive {
  return async (job, fn) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    // The connection sits idle while `fn` runs: a server that goes away (a restart) then errors it with
    // no query to reject, and an 'error' event nobody listens to would end the process.
    const onError = (e: Error) => {
      broken = e;
    };
    client.on("error", onError);
    try {
      // hashtext: the job's name as the lock's key, so callers need no registry of numbers.
      const { rows } = await client.query<{ got: boolean }>(
        "SELECT pg_try_advisory_lock(hashtext($1)) AS got",
        [job],
      );
      if (!rows[0]?.got) return { ran: false };
      try {
        return { ran: true, value: await fn() };
      } finally {
        await client.query("SELECT pg_advisory_unlock(hashtext($1))", [job]).catch((e: Error) => {
          broken = e;
        });
      }
    } catch (e) {
      broken = e as Error;
      throw e;
    } finally {
      // A connection whose unlock failed is closed rather than pooled: the lock must not outlive the run.
      client.off("error", onError);
      client.release(broken);
    }
  };
}

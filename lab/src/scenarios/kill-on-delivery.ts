// Starts a held consumer and SIGKILLs it while it holds the backlog the broker has handed it. Kills timed
// from the service's ready came up to 0.6 s late, and kills timed by the queue's ready count halving
// still raced the consumer's first commit (a 120-message backlog is one batch of a few milliseconds):
// CI runs found nothing lost. Timed any earlier, the kill lands before the process has read its
// deliveries, and the broker requeues them. So the consumer's inbox is locked from before the start
// until the kill, and the kill comes 300 ms after a consumer transaction first waits on that lock. That
// is the state a consumer dies in when it dies holding work: deliveries taken (acked, if it acks on
// arrival), their effects not committed. The queue's ready count is read through AMQP (queue.declare
// passive answers from the queue itself, not from the management API's 5 s statistics).
import {
  adminUrl,
  amqpUrls,
  databaseName,
  killApplication,
  type ServiceName,
  type Stack,
  startApplication,
} from "@orderflow/infra";
import amqp from "amqplib";
import pg from "pg";

const POLL_MS = 5;
/** The start (supervisor poll, process start-up, subscribe) took up to 8.7 s on a loaded 2-core host. */
const DEADLINE_MS = 60_000;
/**
 * The broker pushes a new consumer its prefetch window (or, acked on arrival, its whole backlog) at once:
 * this long after its first transaction waits on the lock, it holds all it will take. (The queue's ready
 * count cannot tell: under load, new orders refill it faster than the consumer drains it.)
 */
const SETTLED_MS = 300;

export interface KillOnDelivery {
  /** Ready messages in the queue when the consumer was released. */
  readyBefore: number;
  /** Ready messages just before the kill. */
  readyAtKill: number;
  /**
   * The fewest ready messages seen before the kill: `readyBefore` minus this is at least what the
   * consumer held (under load, new messages arrive while it holds its share).
   */
  readyLowest: number;
  /** From the release to the kill. */
  afterMs: number;
  /** The deadline passed before a consumer transaction waited on the lock (nothing handed over). */
  timedOut: boolean;
  /** The dead process's transactions, cut as its connections' end would cut them. */
  transactionsCut: number;
}

/** Holds `inbox` in the service's database so that no consumer transaction commits until `release`. */
async function lockInbox(s: Stack, svc: ServiceName) {
  const url = adminUrl(s.pg, databaseName(svc));
  const holder = new pg.Client({ connectionString: url });
  // pg_stat_activity is read once per transaction and kept until its end: the holder's transaction
  // would see the backends as they were at its first look, so a second connection watches them.
  const watcher = new pg.Client({ connectionString: url });
  await holder.connect();
  await watcher.connect();
  await holder.query("BEGIN");
  // EXCLUSIVE lets readers through and stops every insert; each consumer transaction inserts its inbox row.
  await holder.query("LOCK TABLE inbox IN EXCLUSIVE MODE");
  const waiters = `FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`;
  const holderPid = (await holder.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number;
  return {
    /** Consumer transactions waiting on the lock. */
    async waiting(): Promise<number> {
      return Number((await watcher.query(`SELECT count(*) AS n ${waiters}`, [holderPid])).rows[0].n);
    },
    /**
     * Ends the dead process's transactions, then the lock. PostgreSQL notices a vanished client only when
     * it next talks to it, so a statement waiting on the lock would otherwise finish, and a single-statement
     * batch would commit, after its process was gone.
     */
    async release(): Promise<number> {
      try {
        const cut = await watcher.query(`SELECT pg_terminate_backend(pid) ${waiters}`, [holderPid]);
        await holder.query("ROLLBACK");
        return cut.rowCount ?? 0;
      } finally {
        await holder.end().catch(() => {});
        await watcher.end().catch(() => {});
      }
    },
  };
}

export async function killOnDelivery(s: Stack, app: ServiceName, queue: string): Promise<KillOnDelivery> {
  const conn = await amqp.connect(amqpUrls(s, "admin")[0] as string);
  const lock = await lockInbox(s, app);
  let released = false;
  try {
    const ch = await conn.createChannel();
    const ready = async () => (await ch.checkQueue(queue)).messageCount;
    const readyBefore = await ready();
    const t0 = performance.now();
    // Released now; waits (below) until the supervisor's restart after the kill is ready again.
    const started = startApplication(app, s);
    started.catch(() => {}); // awaited below; a rejection before then must not go unhandled
    let readyLowest = readyBefore;
    let waitingSince: number | undefined;
    let holding = false;
    const deadline = Date.now() + DEADLINE_MS;
    while (Date.now() < deadline) {
      readyLowest = Math.min(readyLowest, await ready());
      if (waitingSince === undefined && (await lock.waiting()) > 0) waitingSince = performance.now();
      if (waitingSince !== undefined && performance.now() - waitingSince >= SETTLED_MS) {
        holding = true;
        break;
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const timedOut = !holding;
    const readyAtKill = await ready();
    await killApplication(app, s);
    const afterMs = Math.round(performance.now() - t0);
    released = true;
    const transactionsCut = await lock.release();
    await started;
    return { readyBefore, readyAtKill, readyLowest, afterMs, timedOut, transactionsCut };
  } finally {
    if (!released) await lock.release().catch(() => 0);
    await conn.close().catch(() => {});
  }
}

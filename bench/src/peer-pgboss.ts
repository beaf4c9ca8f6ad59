// pg-boss as a contender: the job sent inside the business transaction through its `db` option (the
// insert runs on the caller's connection, so it commits or rolls back with the order), and a worker that
// publishes each job of a batch with confirms and returns, which completes the whole batch.
// Throughput settings from its docs: batches (batchSize), burst fetching while batches come back full
// (burstWhenBatchFull), LISTEN/NOTIFY to wake the worker on a new job (useListenNotify + the queue's
// notify) with the shortest polling interval allowed as the backstop. Everything else at its defaults
// (retries, retention, supervision and maintenance on, pool of 10).
import { createRequire } from "node:module";
import type pg from "pg";
import { type Db, PgBoss, type WorkOptions } from "pg-boss";
import { type Contender, orderCreated, writeOrderWithEvent } from "./peer-contender.ts";
import { openPeerPublisher, type PeerPublisher } from "./peer-publisher.ts";

const QUEUE = "order-events";
const BACKLOG_CHUNK = 1_000;

const WORK_OPTIONS: WorkOptions = {
  batchSize: 100,
  pollingIntervalSeconds: 0.5,
  burstWhenBatchFull: true,
  localConcurrency: 1,
};

export const PGBOSS_VERSION: string = createRequire(import.meta.url)("pg-boss/package.json").version;

export interface PgBossDeps {
  /** The scratch database; pg-boss installs its own schema (`pgboss`) there. */
  url: string;
  pool: pg.Pool;
  amqpUrl: string;
  routingKey: string;
  postgresRoots: () => number[];
}

/** A transaction's connection as pg-boss's `db`: its statements run inside the caller's BEGIN/COMMIT. */
const onClient = (client: pg.PoolClient): Db => ({
  executeSql: async (text, values) => ({ rows: (await client.query(text, values)).rows }),
});

export async function pgBossContender(d: PgBossDeps): Promise<Contender> {
  const boss = new PgBoss({ connectionString: d.url, useListenNotify: true, schedule: false });
  boss.on("error", () => {}); // a failed poll is retried by pg-boss; the run's counts show any effect
  await boss.start();
  await boss.createQueue(QUEUE, { notify: true });
  let publisher: PeerPublisher | undefined;
  let workerId: string | undefined;
  return {
    name: "pg-boss",
    version: PGBOSS_VERSION,
    settings: { ...WORK_OPTIONS, useListenNotify: true, queueNotify: true, schedule: false, poolMax: 10 },
    postgresRoots: d.postgresRoots,
    async seedBacklog(n) {
      for (let done = 0; done < n; done += BACKLOG_CHUNK) {
        const jobs = Array.from({ length: Math.min(BACKLOG_CHUNK, n - done) }, () => ({
          data: orderCreated(crypto.randomUUID()),
        }));
        await boss.insert(QUEUE, jobs);
      }
    },
    async writeOne() {
      const id = await writeOrderWithEvent(d.pool, (client, _orderId, payload) =>
        boss.send(QUEUE, payload, { db: onClient(client) }),
      );
      if (!id) throw new Error("pg-boss did not create the job");
      return id;
    },
    async start() {
      const pub = await openPeerPublisher(d.amqpUrl);
      publisher = pub;
      workerId = await boss.work<object>(QUEUE, WORK_OPTIONS, async (jobs) => {
        // Every confirm of the batch awaited before returning: returning completes the batch.
        await Promise.all(
          jobs.map((j) => pub.publish(d.routingKey, j.id, Buffer.from(JSON.stringify(j.data)))),
        );
      });
    },
    async stop() {
      if (workerId) await boss.offWork(QUEUE, { id: workerId, wait: true });
      workerId = undefined;
      await publisher?.close();
      publisher = undefined;
    },
    async pending() {
      const r = await d.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active')",
        [QUEUE],
      );
      return r.rows[0]?.n ?? 0;
    },
    async reset() {
      await boss.deleteAllJobs(QUEUE);
      await d.pool.query("TRUNCATE peer_orders");
    },
    async close() {
      await boss.stop({ graceful: true, timeout: 10_000 }).catch(() => {});
    },
  };
}

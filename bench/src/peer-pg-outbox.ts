// pg-transactional-outbox as a contender: its outbox table and message storage (the event inserted on
// the business transaction's client), and its logical-replication listener publishing each event with
// confirms. Logical decoding needs wal_level=logical, so it runs against a scratch cluster of the
// bench's own (scratch-cluster.ts), not the stack's PostgreSQL.
// Settings from its README: the outbox defaults (max-attempts and poisonous-message protection off,
// as its outbox example), the message cleanup off (runs are short and reset), and parallel processing
// through its semaphore controller, 10 at once over a handler pool of 10 (the default controller is a
// mutex: one event at a time, each its own transaction and its own awaited confirm). Each event is
// still its own transaction: lock the row, publish, mark it processed, commit.
import { createRequire } from "node:module";
import pg from "pg";
import {
  createReplicationSemaphoreConcurrencyController,
  DatabaseSetup,
  getDisabledLogger,
  initializeMessageStorage,
  initializeReplicationMessageListener,
  type ReplicationListenerConfig,
  type TransactionalLogger,
} from "pg-transactional-outbox";
import { type Contender, ORDER_CREATED_SQL, PEER_ORDERS_DDL, writeOrderWithEvent } from "./peer-contender.ts";
import { openPeerPublisher, type PeerPublisher } from "./peer-publisher.ts";
import { type ScratchCluster, SUPERUSER } from "./scratch-cluster.ts";

const DATABASE = "bench_peers";
const PARALLEL = 10;
const PUBLICATION = "bench_outbox_pub";
const SLOT = "bench_outbox_slot";

export const PG_OUTBOX_VERSION: string = createRequire(import.meta.url)(
  "pg-transactional-outbox/package.json",
).version;

export interface PgOutboxDeps {
  cluster: ScratchCluster;
  amqpUrl: string;
  routingKey: string;
  /** Warnings and errors the library logs (it retries on its own), for the report. */
  onError: (message: string) => void;
}

function errorLogger(onError: (m: string) => void): TransactionalLogger {
  const quiet = getDisabledLogger();
  const report =
    (level: string) =>
    (...args: unknown[]) =>
      onError(
        `${level}: ${args.map((a) => (a instanceof Error ? a.message : typeof a === "object" ? JSON.stringify(a) : String(a))).join(" ")}`,
      );
  return {
    ...quiet,
    warn: report("warn"),
    error: report("error"),
    fatal: report("fatal"),
  } as TransactionalLogger;
}

export async function pgOutboxContender(d: PgOutboxDeps): Promise<Contender> {
  const admin = new pg.Client({ connectionString: d.cluster.url() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DATABASE}`).finally(() => admin.end());
  const url = d.cluster.url(DATABASE);
  const pool = new pg.Pool({ connectionString: url, max: 16 });
  pool.on("error", () => {});
  const setup = {
    outboxOrInbox: "outbox" as const,
    database: DATABASE,
    schema: "public",
    table: "outbox",
    listenerRole: SUPERUSER,
    publication: PUBLICATION,
    replicationSlot: SLOT,
  };
  await pool.query(PEER_ORDERS_DDL);
  await pool.query(DatabaseSetup.dropAndCreateTable(setup));
  await pool.query(DatabaseSetup.setupReplicationCore(setup));
  const config: ReplicationListenerConfig = {
    outboxOrInbox: "outbox",
    dbListenerConfig: { connectionString: url },
    dbHandlerConfig: { connectionString: url, max: PARALLEL } as pg.ClientConfig,
    settings: {
      dbSchema: "public",
      dbTable: "outbox",
      dbPublication: PUBLICATION,
      dbReplicationSlot: SLOT,
      enableMaxAttemptsProtection: false,
      enablePoisonousMessageProtection: false,
      messageCleanupIntervalInMs: 0,
    },
  };
  // The listener locks each streamed row on a connection of its own; logical decoding can stream a
  // commit before it is visible to other connections, and a row it does not find yet is skipped
  // ("MESSAGE_NOT_FOUND") with its position acknowledged: it stays unprocessed in the outbox and is
  // never streamed again. Counted here so such rows count as lost, not as pending.
  let stranded = 0;
  const logger = errorLogger((m) => {
    if (m.includes("MESSAGE_NOT_FOUND")) stranded++;
    d.onError(m);
  });
  const store = initializeMessageStorage(config, logger);
  /** A fresh slot per run: changes a stopped run left unread are not streamed into the next. */
  const recreateSlot = async () => {
    await pool.query(
      "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1",
      [SLOT],
    );
    await pool.query("SELECT pg_create_logical_replication_slot($1, 'pgoutput')", [SLOT]);
  };
  await recreateSlot();
  let publisher: PeerPublisher | undefined;
  let shutdown: (() => Promise<void>) | undefined;
  return {
    name: "pg-transactional-outbox",
    version: PG_OUTBOX_VERSION,
    settings: {
      listener: "logical replication (pgoutput)",
      concurrency: `semaphore, ${PARALLEL} at once`,
      handlerPoolMax: PARALLEL,
      enableMaxAttemptsProtection: false,
      enablePoisonousMessageProtection: false,
      messageCleanupIntervalInMs: 0,
      server: "scratch cluster, wal_level=logical",
    },
    postgresRoots: () => {
      const pid = d.cluster.pid();
      return pid ? [pid] : [];
    },
    async seedBacklog(n) {
      await pool.query(
        `INSERT INTO outbox (id, aggregate_type, aggregate_id, message_type, payload)
         SELECT gen_random_uuid(), 'order', md5(g::text), 'order.created', ${ORDER_CREATED_SQL}
           FROM generate_series(1, $1) g`,
        [n],
      );
    },
    writeOne: () =>
      writeOrderWithEvent(pool, async (client, orderId, payload) => {
        const id = crypto.randomUUID();
        await store(
          { id, aggregateType: "order", aggregateId: orderId, messageType: "order.created", payload },
          client,
        );
        return id;
      }),
    async start() {
      const pub = await openPeerPublisher(d.amqpUrl);
      publisher = pub;
      [shutdown] = initializeReplicationMessageListener(
        config,
        {
          handle: (message) =>
            pub.publish(d.routingKey, message.id, Buffer.from(JSON.stringify(message.payload))),
        },
        logger,
        { concurrencyStrategy: createReplicationSemaphoreConcurrencyController(PARALLEL) },
      );
    },
    async stop() {
      await shutdown?.();
      shutdown = undefined;
      await publisher?.close();
      publisher = undefined;
    },
    async pending() {
      const r = await pool.query<{ n: number }>(
        // Abandoned rows count too: a stop in the middle of a backlog makes it abandon the rows it had
        // queued, an artefact of the bench's time bound rather than a publish that failed.
        "SELECT count(*)::int AS n FROM outbox WHERE processed_at IS NULL",
      );
      return Math.max(0, (r.rows[0]?.n ?? 0) - stranded);
    },
    async reset() {
      stranded = 0;
      await pool.query("TRUNCATE outbox, peer_orders");
      await recreateSlot();
    },
    async close() {
      await shutdown?.();
      await pool.end().catch(() => {});
    },
  };
}

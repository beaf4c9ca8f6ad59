// The seed articles' relay, implemented here as the baseline: a scheduled scan with a fixed delay of 1 s,
// 100 due rows per scan, and per row: a CAS UPDATE status 0 -> 1, one publish whose confirm is awaited
// before the next one, then a mark-sent UPDATE. It runs against the same outbox table (and so the same
// partial index) as orderflow's relay: the comparison is of the algorithm only.
import amqp, { type ChannelModel, type ConfirmChannel } from "amqplib";
import type pg from "pg";

export interface SeedRelayOptions {
  pool: pg.Pool;
  amqpUrl: string;
  exchange: string;
  intervalMs?: number;
  batchSize?: number;
}

export interface BenchRelay {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The after-commit hook; the seed's scanner has none (the baseline is the scan alone). */
  afterCommit(messageIds: string[]): void;
}

interface Row {
  id: string;
  message_id: string;
  event_type: string;
  payload: string;
  attempts: number;
}

const SCAN = `SELECT id::text AS id, message_id::text AS message_id, event_type, payload::text AS payload, attempts
  FROM outbox WHERE status = 0 AND next_attempt_at <= now() ORDER BY id LIMIT $1`;
const CAS = "UPDATE outbox SET status = 1, sent_at = now() WHERE id = $1 AND status = 0";
const MARK_SENT = "UPDATE outbox SET sent_at = now(), attempts = attempts + 1 WHERE id = $1";
const RETRY_LATER = `UPDATE outbox SET status = 0, attempts = attempts + 1,
  next_attempt_at = now() + make_interval(secs => 60 * power(2, attempts)) WHERE id = $1`;

export function createSeedRelay(opts: SeedRelayOptions): BenchRelay {
  const intervalMs = opts.intervalMs ?? 1_000;
  const batchSize = opts.batchSize ?? 100;
  let conn: ChannelModel | undefined;
  let ch: ConfirmChannel | undefined;
  let running = false;
  let loopDone: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  const publishAndWait = (row: Row) =>
    new Promise<void>((resolve, reject) => {
      (ch as ConfirmChannel).publish(
        opts.exchange,
        row.event_type,
        Buffer.from(row.payload, "utf8"),
        {
          persistent: true,
          messageId: row.message_id,
          type: row.event_type,
          contentType: "application/json",
        },
        (err) => (err ? reject(err) : resolve()),
      );
    });

  async function scanOnce(): Promise<void> {
    const rows = (await opts.pool.query<Row>(SCAN, [batchSize])).rows;
    for (const row of rows) {
      if (!running) return;
      const claimed = (await opts.pool.query(CAS, [row.id])).rowCount ?? 0;
      if (claimed === 0) continue;
      try {
        await publishAndWait(row);
        await opts.pool.query(MARK_SENT, [row.id]);
      } catch {
        await opts.pool.query(RETRY_LATER, [row.id]);
      }
    }
  }

  async function loop(): Promise<void> {
    while (running) {
      await scanOnce();
      // fixedDelay: the next scan starts intervalMs after this one ended.
      await new Promise<void>((r) => {
        wake = r;
        timer = setTimeout(r, intervalMs);
      });
    }
  }

  return {
    async start() {
      conn = await amqp.connect(opts.amqpUrl);
      conn.on("error", () => {});
      ch = await conn.createConfirmChannel();
      running = true;
      loopDone = loop();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      wake?.();
      await loopDone?.catch(() => {});
      await ch?.close().catch(() => {});
      await conn?.close().catch(() => {});
    },
    afterCommit() {},
  };
}

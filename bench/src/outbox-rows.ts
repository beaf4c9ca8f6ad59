// Outbox rows for the relay and claim benchmarks, written the fast way (one INSERT ... SELECT
// generate_series) or the real way (withOutbox in a transaction of its own, as a service writes them).
import { pgTransaction } from "@orderflow/db";
import { withOutbox } from "@orderflow/outbox";
import type pg from "pg";

// About 200 bytes of JSON, like an order.created snapshot.
const PAYLOAD_SQL = `jsonb_build_object('orderId', md5(g::text), 'customerId', 'c-' || (g % 1000),
  'lines', jsonb_build_array(jsonb_build_object('sku', 'SKU-' || (g % 50), 'quantity', 2, 'unitPrice', 999)),
  'total', 1998, 'createdAt', now())`;

/** Inserts `n` pending rows with `eventType` as routing key; returns in one statement. */
export async function insertPending(pool: pg.Pool, n: number, eventType: string): Promise<void> {
  await pool.query(
    `INSERT INTO outbox (message_id, event_type, aggregate_type, aggregate_id, payload)
     SELECT gen_random_uuid(), $1, 'order', md5(g::text), ${PAYLOAD_SQL} FROM generate_series(1, $2) g`,
    [eventType, n],
  );
}

const HISTORY_PAYLOAD = JSON.stringify({
  orderId: "00000000-0000-0000-0000-000000000000",
  customerId: "c-1",
  lines: [{ sku: "SKU-1", quantity: 2, unitPrice: 999 }],
  total: 1998,
  createdAt: "2026-11-22T00:00:00.000Z",
});

/** Inserts `n` rows in a final state into the outbox (done) or straight into the archive. */
export async function insertHistory(
  pool: pg.Pool,
  table: "outbox" | "outbox_archive",
  n: number,
): Promise<void> {
  // Old enough that the archiver would move them; ids far from the live sequence in the archive.
  const idExpr =
    table === "outbox_archive"
      ? "(10000000000 + g + coalesce((SELECT max(id) FROM outbox_archive), 0))"
      : "nextval('outbox_id_seq')";
  const extra = table === "outbox_archive" ? ", archived_at" : "";
  const extraVal = table === "outbox_archive" ? ", now()" : "";
  await pool.query(
    `INSERT INTO ${table} (id, message_id, event_type, aggregate_type, aggregate_id, payload, schema_version,
        headers, status, attempts, created_at, sent_at, done_at${extra})
     SELECT ${idExpr}, gen_random_uuid(), 'order.created', 'order', g::text, $2::jsonb, 1, '{}'::jsonb,
        2, 1, now() - interval '8 days', now() - interval '8 days', now() - interval '8 days'${extraVal}
       FROM generate_series(1, $1) g`,
    // One payload for every history row: the claim never reads them, and building a million is slow.
    [n, HISTORY_PAYLOAD],
  );
}

/** Rows that reached the broker's confirm: both relays set status 1 and count the attempt then. */
export async function confirmedCount(pool: pg.Pool): Promise<number> {
  const r = await pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM outbox WHERE status = 1 AND attempts > 0",
  );
  return r.rows[0]?.n ?? 0;
}

/** One row in a transaction of its own, through withOutbox; `afterCommit` gets its id after COMMIT. */
export async function writeOne(
  pool: pg.Pool,
  eventType: string,
  afterCommit: (ids: string[]) => void,
): Promise<void> {
  await withOutbox(
    (fn) => pgTransaction(pool, fn),
    afterCommit,
    async (_tx, enqueue) => {
      const orderId = crypto.randomUUID();
      await enqueue({
        eventType,
        aggregateType: "order",
        aggregateId: orderId,
        payload: {
          orderId,
          customerId: "c-1",
          lines: [{ sku: "SKU-1", quantity: 2, unitPrice: 999 }],
          total: 1998,
        },
        correlationId: orderId,
      });
    },
  );
}

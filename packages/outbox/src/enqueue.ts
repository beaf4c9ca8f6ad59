import { randomUUID } from "node:crypto";
import { currentVersion, isEventType, orderedByAggregate } from "@orderflow/contracts";
import { type SqlFragment, type SqlTx, sqlText } from "@orderflow/db";
import { activeTraceparent } from "@orderflow/telemetry";
import { type DoneMark, markColumns, markDoneMany, markDoneSql } from "./sql/mark-done.ts";
import { byId } from "./sql/row.ts";
import type { ClaimedRow, OutboxEvent, OutboxRow } from "./types.ts";

/**
 * Prepares the event's row. The trace context is captured now, while the writer's span (the HTTP
 * request, the consumer's delivery) is active: the relay publishes later, from another context or
 * process. Without a span (tracing off) a context the caller passed along is kept as it came.
 */
export function outboxRow(event: OutboxEvent): OutboxRow {
  const headers: Record<string, string> = {};
  if (event.correlationId) headers.correlationId = event.correlationId;
  if (event.causationId) headers.causationId = event.causationId;
  const traceparent = activeTraceparent() ?? event.traceparent;
  if (traceparent) headers.traceparent = traceparent;
  const type = event.eventType;
  const ordered = event.ordered ?? (isEventType(type) && orderedByAggregate(type));
  return {
    messageId: event.messageId ?? randomUUID(),
    eventType: event.eventType,
    aggregateType: event.aggregateType,
    aggregateId: event.aggregateId,
    payload: JSON.stringify(event.payload ?? null),
    // Producers write the version the contracts call current; a type outside them (tests' own) is 1.
    schemaVersion: event.schemaVersion ?? (isEventType(type) ? currentVersion(type) : 1),
    headers,
    orderingKey: ordered ? `${event.aggregateType}:${event.aggregateId}` : null,
  };
}

// Raw SQL through the caller's transaction: a Prisma interactive `tx` and pgTransaction both satisfy
// SqlTx, so the rows commit or roll back with the business writes. Nothing is published here. Several
// rows (a consumer batch's replies) go in one statement.
const INSERT_ROWS = `
INSERT INTO outbox (message_id, event_type, aggregate_type, aggregate_id, payload, schema_version, headers,
                    ordering_key)
SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::int[], $7::jsonb[],
                     $8::text[])`;

/** The rows as the inserts' eight column arrays ($1..$8). A trigger numbers ordered rows (outbox_sequence). */
const columns = (rows: readonly OutboxRow[]) => [
  rows.map((r) => r.messageId),
  rows.map((r) => r.eventType),
  rows.map((r) => r.aggregateType),
  rows.map((r) => r.aggregateId),
  rows.map((r) => r.payload),
  rows.map((r) => r.schemaVersion),
  rows.map((r) => JSON.stringify(r.headers)),
  rows.map((r) => r.orderingKey),
];

/** Inserts prepared rows inside `tx`, in one statement. */
export async function insertOutboxRows(tx: SqlTx, rows: readonly OutboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.$executeRawUnsafe(INSERT_ROWS, ...columns(rows));
}

// The same insert with the fast path's lease already taken (next_attempt_at past the lease, as a claim
// would set it): the rows leave this transaction claimed, so the fast path publishes them after the commit
// without a claim statement of its own. If nothing publishes them (the process dies), the lease expires
// and the sweep takes them, as it does a dead claimer's rows.
// A row of an ordered stream is not leased: it may have an older row of its key still open, so it goes
// out through a claim, which checks its turn (claimByIds, right after the commit).
// Its eight column arrays and the lease are $first..$first + 8, and `where` may gate it, so the same insert
// can also close another statement (insertWithOutboxRows).
const leasedInsertSql = (first: number, where = "") => {
  const at = (i: number) => `$${first + i}`;
  return `
INSERT INTO outbox (message_id, event_type, aggregate_type, aggregate_id, payload, schema_version, headers,
                    ordering_key, next_attempt_at)
SELECT m, e, t, a, p, v, h, k,
       CASE WHEN k IS NULL THEN now() + make_interval(secs => ${at(8)}::double precision / 1000) ELSE now() END
  FROM unnest(${at(0)}::uuid[], ${at(1)}::text[], ${at(2)}::text[], ${at(3)}::text[], ${at(4)}::jsonb[],
              ${at(5)}::int[], ${at(6)}::jsonb[], ${at(7)}::text[]) AS r(m, e, t, a, p, v, h, k)
${where}
RETURNING id::text AS id, message_id::text AS message_id, created_at, ordering_key IS NULL AS leased`;
};

const INSERT_LEASED = leasedInsertSql(1);

// A consumer batch's marks (the replies' markDone) ride in front of its rows: one statement, not two, at
// the end of every batch that both answers and asks (a round trip fewer for the order service's
// confirmations). A data-modifying WITH runs to completion whether or not the INSERT reads it.
const MARK_THEN_INSERT_LEASED = `WITH marked AS (${markDoneSql(10)}) ${INSERT_LEASED}`;

/**
 * Inserts prepared rows inside `tx`, in one statement, leased for `leaseMs`; returns the leased ones as
 * claimed rows in insert order, ready for the fast path once `tx` has committed (the others, an ordered
 * stream's, are `unleased`). `marks` (markDone's) go in the same statement.
 */
export async function insertLeasedRows(
  tx: SqlTx,
  rows: readonly OutboxRow[],
  leaseMs: number,
  marks: readonly DoneMark[] = [],
): Promise<ClaimedRow[]> {
  if (rows.length === 0) {
    await markDoneMany(tx, marks);
    return [];
  }
  const marked = markColumns(marks);
  const inserted = await tx.$queryRawUnsafe<Inserted[]>(
    marked ? MARK_THEN_INSERT_LEASED : INSERT_LEASED,
    ...columns(rows),
    leaseMs,
    ...(marked ?? []),
  );
  return asClaimed(rows, inserted);
}

interface Inserted {
  id: string;
  message_id: string;
  created_at: Date;
  leased: boolean;
}

/** The leased inserted rows as claimed rows, in insert order. */
function asClaimed(rows: readonly OutboxRow[], inserted: readonly Inserted[]): ClaimedRow[] {
  // PostgreSQL answers uuids in lower case, whatever case the caller's message id had.
  const byMessageId = new Map(rows.map((r) => [r.messageId.toLowerCase(), r]));
  return inserted
    .filter((i) => i.leased)
    .map((i) => {
      const r = byMessageId.get(i.message_id) as OutboxRow;
      return { ...r, id: i.id, attempts: 0, createdAt: i.created_at, sequence: null };
    })
    .sort(byId);
}

/** The rows an insert leaves unleased (an ordered stream's): the fast path claims them by id. */
export const unleased = (rows: readonly OutboxRow[]): OutboxRow[] =>
  rows.filter((r) => r.orderingKey !== null);

/** A caller's write as the CTEs of one statement (see insertWithOutboxRows). */
export interface GatedWrite {
  /** The CTEs, without the WITH: `a AS (INSERT ... RETURNING ...), b AS (...)`. */
  ctes: SqlFragment;
  /** The CTE whose rows say the write happened (an insert's RETURNING): the events go out only then. */
  gate: string;
}

/**
 * The caller's CTEs, then the outbox rows (leased for `leaseMs`, 0 for none) where the gate has a row.
 * One statement is atomic in PostgreSQL, so run outside a transaction it still commits the business rows
 * and their events together, or neither: no BEGIN and no COMMIT, one round trip where a transaction of
 * two statements takes four (POST /orders).
 */
function gatedInsertSql(w: GatedWrite, leaseMs: number, rows: readonly OutboxRow[]) {
  const { text, params } = sqlText(w.ctes, []);
  const sql = `
WITH ${text},
outbox_rows AS (${leasedInsertSql(params.length + 1, `WHERE EXISTS (SELECT 1 FROM ${w.gate})`)})
SELECT g.written, x.id, x.message_id, x.created_at, x.leased
  FROM (SELECT count(*)::int AS written FROM ${w.gate}) g LEFT JOIN outbox_rows x ON true`;
  return { sql, params: [...params, ...columns(rows), leaseMs] };
}

/**
 * Runs the caller's write with the rows' outbox insert in one statement on `db` (a transaction, or a
 * pool whose every statement commits alone). Returns whether the gate wrote, and the outbox rows as
 * claimed rows (leased for `leaseMs`) when it did.
 */
export async function insertWithOutboxRows(
  db: SqlTx,
  w: GatedWrite,
  rows: readonly OutboxRow[],
  leaseMs: number,
): Promise<{ written: boolean; claimed: ClaimedRow[] }> {
  const q = gatedInsertSql(w, leaseMs, rows);
  const result = await db.$queryRawUnsafe<(Partial<Inserted> & { written: number })[]>(q.sql, ...q.params);
  const written = (result[0]?.written ?? 0) > 0;
  const inserted = result.filter((r): r is Inserted & { written: number } => r.id != null);
  return { written, claimed: written ? asClaimed(rows, inserted) : [] };
}

/** Writes the event's outbox row inside `tx`; returns its message id (for the after-commit wake-up). */
export async function enqueue(tx: SqlTx, event: OutboxEvent): Promise<string> {
  const row = outboxRow(event);
  await insertOutboxRows(tx, [row]);
  return row.messageId;
}

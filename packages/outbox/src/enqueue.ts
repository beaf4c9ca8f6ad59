import { randomUUID } from "node:crypto";
import type { SqlTx } from "@orderflow/db";
import { activeTraceparent } from "@orderflow/telemetry";
import type { OutboxEvent } from "./types.ts";

/** An outbox row ready to insert: its message id fixed and the writer's trace context captured. */
export interface OutboxRow {
  messageId: string;
  eventType: string;
  aggregateType: string;
  aggregateId: string;
  payload: string;
  schemaVersion: number;
  headers: string;
}

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
  return {
    messageId: event.messageId ?? randomUUID(),
    eventType: event.eventType,
    aggregateType: event.aggregateType,
    aggregateId: event.aggregateId,
    payload: JSON.stringify(event.payload ?? null),
    schemaVersion: event.schemaVersion ?? 1,
    headers: JSON.stringify(headers),
  };
}

// Raw SQL through the caller's transaction: a Prisma interactive `tx` and pgTransaction both satisfy
// SqlTx, so the rows commit or roll back with the business writes. Nothing is published here. Several
// rows (a consumer batch's replies) go in one statement.
const INSERT_ROWS = `
INSERT INTO outbox (message_id, event_type, aggregate_type, aggregate_id, payload, schema_version, headers)
SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::int[], $7::jsonb[])`;

/** Inserts prepared rows inside `tx`, in one statement. */
export async function insertOutboxRows(tx: SqlTx, rows: readonly OutboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.$executeRawUnsafe(
    INSERT_ROWS,
    rows.map((r) => r.messageId),
    rows.map((r) => r.eventType),
    rows.map((r) => r.aggregateType),
    rows.map((r) => r.aggregateId),
    rows.map((r) => r.payload),
    rows.map((r) => r.schemaVersion),
    rows.map((r) => r.headers),
  );
}

/** Writes the event's outbox row inside `tx`; returns its message id (for the after-commit wake-up). */
export async function enqueue(tx: SqlTx, event: OutboxEvent): Promise<string> {
  const row = outboxRow(event);
  await insertOutboxRows(tx, [row]);
  return row.messageId;
}

import { randomUUID } from "node:crypto";
import type { SqlTx } from "@orderflow/db";
import { activeTraceparent } from "@orderflow/telemetry";
import type { OutboxEvent } from "./types.ts";

// Raw SQL through the caller's transaction: a Prisma interactive `tx` and pgTransaction both satisfy
// SqlTx, so the row commits or rolls back with the business writes. Nothing is published here.
const SQL = `
INSERT INTO outbox (message_id, event_type, aggregate_type, aggregate_id, payload, schema_version, headers)
VALUES ($1::uuid, $2, $3, $4, $5::jsonb, $6::int, $7::jsonb)`;

/** Writes the event's outbox row inside `tx`; returns its message id (for the after-commit wake-up). */
export async function enqueue(tx: SqlTx, event: OutboxEvent): Promise<string> {
  const messageId = event.messageId ?? randomUUID();
  const headers: Record<string, string> = {};
  if (event.correlationId) headers.correlationId = event.correlationId;
  if (event.causationId) headers.causationId = event.causationId;
  // The trace context is captured now, while the writer's span (the HTTP request, the consumer's delivery)
  // is active: the relay publishes later, from another context or process. Without a span (tracing off)
  // a context the caller passed along is kept as it came.
  const traceparent = activeTraceparent() ?? event.traceparent;
  if (traceparent) headers.traceparent = traceparent;
  await tx.$executeRawUnsafe(
    SQL,
    messageId,
    event.eventType,
    event.aggregateType,
    event.aggregateId,
    JSON.stringify(event.payload ?? null),
    event.schemaVersion ?? 1,
    JSON.stringify(headers),
  );
  return messageId;
}

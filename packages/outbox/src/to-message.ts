import { HEADERS } from "@orderflow/contracts";
import { EXCHANGES, type OutgoingMessage } from "@orderflow/messaging";
import type { ClaimedRow } from "./types.ts";

/**
 * The wire form of an outbox row, to orderflow.events. Consumers deduplicate on the AMQP message-id; the
 * event type is both the routing key and the AMQP `type`; correlation id is the AMQP property; the rest
 * travels as headers. `traceparent` is what the message carries as its trace context: by default the one the
 * row captured; the relay's publish span puts its own there (publish-spans.ts).
 */
export function toMessage(row: ClaimedRow, traceparent = row.headers.traceparent): OutgoingMessage {
  const headers: Record<string, unknown> = {
    "x-schema-version": row.schemaVersion,
    "x-aggregate-type": row.aggregateType,
    "x-aggregate-id": row.aggregateId,
  };
  // Consumers read the correlation id from this header (packages/contracts HEADERS); the AMQP property
  // below carries it too, for tools that show properties.
  if (row.headers.correlationId) headers["x-correlation-id"] = row.headers.correlationId;
  if (row.headers.causationId) headers["x-causation-id"] = row.headers.causationId;
  if (traceparent) headers.traceparent = traceparent;
  if (row.orderingKey !== null && row.sequence !== null) {
    headers[HEADERS.orderingKey] = row.orderingKey;
    headers[HEADERS.sequence] = row.sequence;
  }
  return {
    exchange: EXCHANGES.events,
    routingKey: row.eventType,
    body: Buffer.from(row.payload, "utf8"),
    properties: {
      messageId: row.messageId,
      type: row.eventType,
      ...(row.headers.correlationId ? { correlationId: row.headers.correlationId } : {}),
      contentType: "application/json",
      timestamp: Math.floor(row.createdAt.getTime() / 1000),
      headers,
    },
  };
}

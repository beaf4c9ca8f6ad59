// How an event travels on AMQP: the payload is the body (JSON); everything about the message rides in
// properties and headers, so a consumer can route, dedupe and park a message without parsing its body.

export const HEADERS = {
  schemaVersion: "x-schema-version",
  correlationId: "x-correlation-id",
  causationId: "x-causation-id",
  traceparent: "traceparent",
  /** The order (or other aggregate) a message is about: consumers keep each one's messages in order. */
  aggregateId: "x-aggregate-id",
  /** An ordered stream's key ("aggregate-type:aggregate-id") and the message's place in it, from 1. */
  orderingKey: "x-ordering-key",
  sequence: "x-sequence",
} as const;

export const CONTENT_TYPE = "application/json";

/** An id as this system makes them (message ids, order ids): a 36-character UUID, either case. */
export const isUuid = (v: unknown): v is string =>
  typeof v === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);

/** W3C trace context (version-traceid-parentid-flags). Anything else is dropped where it enters. */
export const isTraceparent = (v: unknown): v is string =>
  typeof v === "string" && /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/.test(v);

export interface Envelope {
  /** The outbox row's id: the consumer's dedup key. */
  messageId: string;
  type: string;
  schemaVersion: number;
  /** Id shared by every message of one saga (the order's first message id, say). */
  correlationId: string;
  /** Id of the message that caused this one; equals messageId for a saga's first message. */
  causationId: string;
  /** W3C trace context captured when the outbox row was written. */
  traceparent?: string;
  /** Milliseconds since the epoch; when the event happened. */
  timestamp?: number;
}

/** The AMQP publish options for an envelope (amqplib's `Options.Publish` shape). */
export function amqpProperties(e: Envelope): {
  messageId: string;
  type: string;
  contentType: string;
  persistent: true;
  timestamp?: number;
  headers: Record<string, string | number>;
} {
  const headers: Record<string, string | number> = {
    [HEADERS.schemaVersion]: e.schemaVersion,
    [HEADERS.correlationId]: e.correlationId,
    [HEADERS.causationId]: e.causationId,
  };
  if (e.traceparent) headers[HEADERS.traceparent] = e.traceparent;
  return {
    messageId: e.messageId,
    type: e.type,
    contentType: CONTENT_TYPE,
    persistent: true,
    ...(e.timestamp !== undefined ? { timestamp: Math.floor(e.timestamp / 1000) } : {}),
    headers,
  };
}

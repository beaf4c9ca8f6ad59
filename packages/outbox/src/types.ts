// The shapes shared across the outbox: what a caller enqueues, what the relay claims.

export const OutboxStatus = { pending: 0, sent: 1, done: 2, failed: 9 } as const;
export type OutboxStatus = (typeof OutboxStatus)[keyof typeof OutboxStatus];

/** An event as the business code hands it over. `eventType` is also the AMQP routing key. */
export interface OutboxEvent {
  eventType: string;
  aggregateType: string;
  aggregateId: string;
  /** The full snapshot the consumer needs, not a diff: consumers must not call back for state. */
  payload: unknown;
  schemaVersion?: number;
  /** Defaults to a fresh UUIDv4; it is also the AMQP message-id consumers deduplicate on. */
  messageId?: string;
  correlationId?: string;
  /** The message id of the event that caused this one (for a saga reply: the request's id). */
  causationId?: string;
  /** W3C trace context of the writing request, captured now rather than at dispatch time. */
  traceparent?: string;
  /**
   * An ordered stream (per aggregate): defaults to what the contracts declare for the event type; a type
   * outside them (a tool's or a test's own) sets it here.
   */
  ordered?: boolean;
}

/** An outbox row ready to insert: its message id fixed and the writer's trace context captured. */
export interface OutboxRow {
  messageId: string;
  eventType: string;
  aggregateType: string;
  aggregateId: string;
  /** The payload as JSON text (jsonb in the table): published as the message body without re-encoding. */
  payload: string;
  schemaVersion: number;
  headers: Record<string, string>;
  /** An ordered stream's key, "aggregateType:aggregateId"; null when the event is not ordered. */
  orderingKey: string | null;
}

/** A claimed row, ready to publish. */
export interface ClaimedRow extends OutboxRow {
  id: string;
  attempts: number;
  createdAt: Date;
  /** The row's place in its ordered stream (from 1), given at insert; null when not ordered. */
  sequence: number | null;
}

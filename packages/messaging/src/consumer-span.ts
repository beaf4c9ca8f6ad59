// The consumer's span, one per delivery (OpenTelemetry messaging conventions, "process"): the child of
// the publish span whose traceparent the message carries, active while the delivery is decided, so the
// handler's transaction, the outbox rows it writes (they capture the active context) and every line it
// logs belong to the order's trace. Its outcome (done, duplicate, retried, parked...) is an attribute. A
// set-based handler's statement serves several deliveries and runs in none of their spans; what it writes
// for one delivery (its outbox rows) it writes within that delivery's span (`within`).
import { HEADERS } from "@orderflow/contracts";
import {
  annotateActiveSpan,
  failActiveSpan,
  SpanKind,
  type SpanStart,
  startSpan,
  tracingOn,
  withActiveSpan,
} from "@orderflow/telemetry";
import type { ConsumeMessage } from "amqplib";
import type { Outcome } from "./consumer-types.ts";

const text = (v: unknown): string | undefined =>
  typeof v === "string" ? v : Buffer.isBuffer(v) ? v.toString("utf8") : undefined;

/** A delivery's span, kept open across its batch: `run` makes it active, `end` closes it. */
export interface ConsumerSpan {
  run<T>(fn: () => T): T;
  end(): void;
}

const NO_SPAN: ConsumerSpan = { run: (fn) => fn(), end: () => {} };

function spanStart(queue: string, msg: ConsumeMessage): SpanStart {
  const p = msg.properties;
  const h = (p.headers ?? {}) as Record<string, unknown>;
  const messageId = text(p.messageId);
  const correlationId = text(h[HEADERS.correlationId]) ?? text(p.correlationId);
  return {
    kind: SpanKind.CONSUMER,
    // The publish span's context; a message without a valid one starts a trace of its own.
    parent: text(h[HEADERS.traceparent]) ?? "",
    attributes: {
      "messaging.system": "rabbitmq",
      "messaging.operation.type": "process",
      "messaging.operation.name": "process",
      "messaging.destination.name": msg.fields.exchange,
      "messaging.destination.subscription.name": queue,
      "messaging.rabbitmq.destination.routing_key": msg.fields.routingKey,
      ...(messageId ? { "messaging.message.id": messageId } : {}),
      ...(correlationId ? { "messaging.message.conversation_id": correlationId } : {}),
      "messaging.rabbitmq.message.redelivered": msg.fields.redelivered,
    },
  };
}

/** Opens the delivery's span ("process <type>"); a no-op while tracing is off. */
export function openConsumerSpan(queue: string, msg: ConsumeMessage): ConsumerSpan {
  if (!tracingOn()) return NO_SPAN;
  const span = startSpan(`process ${text(msg.properties.type) ?? "unknown"}`, spanStart(queue, msg));
  if (!span) return NO_SPAN;
  return { run: (fn) => withActiveSpan(span, fn), end: () => span.end() };
}

/** Records an outcome on the delivery's span (called within it); a retry or a parking marks it failed. */
export function markOutcome(o: Outcome): void {
  if (!tracingOn()) return;
  annotateActiveSpan("orderflow.consumer.outcome", o.kind);
  if (o.kind === "retried" || o.kind === "requeued") failActiveSpan(o.error.slice(0, 500));
  else if (o.kind === "parked") failActiveSpan(`${o.reason}: ${o.detail}`.slice(0, 500));
}

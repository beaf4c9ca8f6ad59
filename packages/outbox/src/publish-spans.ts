// The relay's producer span, one per row (OpenTelemetry messaging conventions): its parent is the trace
// context the row captured when it was written, and the message carries the span's own traceparent, so
// the consumer's span is the publish's child. It ends with the broker's verdict. The same code serves the
// relay process and the services' fast path; while tracing is off it returns undefined at once.
import { EXCHANGES, type OutgoingMessage, type PublishOutcome } from "@orderflow/messaging";
import { failSpan, SpanKind, startSpan, traceparentOf, tracingOn } from "@orderflow/telemetry";
import { toMessage } from "./to-message.ts";
import type { ClaimedRow } from "./types.ts";

export interface TracedBatch {
  messages: OutgoingMessage[];
  /** Records each row's outcome on its span and ends the spans. */
  end(outcomes: readonly PublishOutcome[]): void;
}

export function tracePublish(rows: readonly ClaimedRow[], path: "fast" | "sweep"): TracedBatch | undefined {
  if (!tracingOn()) return undefined;
  const spans = rows.map((row) =>
    startSpan(`publish ${row.eventType}`, {
      kind: SpanKind.PRODUCER,
      // No captured context (a row written outside any trace): the publish starts a trace of its own.
      parent: row.headers.traceparent ?? "",
      attributes: {
        "messaging.system": "rabbitmq",
        "messaging.operation.type": "send",
        "messaging.operation.name": "publish",
        "messaging.destination.name": EXCHANGES.events,
        "messaging.rabbitmq.destination.routing_key": row.eventType,
        "messaging.message.id": row.messageId,
        ...(row.headers.correlationId
          ? { "messaging.message.conversation_id": row.headers.correlationId }
          : {}),
        "orderflow.relay.path": path,
        "orderflow.outbox.attempts": row.attempts,
      },
    }),
  );
  return {
    messages: rows.map((row, i) => {
      const span = spans[i];
      return toMessage(row, span ? traceparentOf(span) : row.headers.traceparent);
    }),
    end(outcomes) {
      spans.forEach((span, i) => {
        if (!span) return;
        const o = outcomes[i];
        span.setAttribute("orderflow.publish.outcome", o?.status ?? "none");
        if (o && o.status !== "confirmed") failSpan(span, `${o.status}: ${o.reason}`);
        span.end();
      });
    },
  };
}

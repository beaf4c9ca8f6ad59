// Reads an AMQP delivery into a validated event, or the reason it must be parked. Nothing here throws.
import { type Envelope, type EventType, HEADERS, validateEvent } from "@orderflow/contracts";
import type { ConsumeMessage } from "amqplib";

/** Our own attempt counter (x-death counts broker hops, not handler attempts). */
export const ATTEMPT_HEADER = "x-retry-attempt";

export type ParkReason =
  | "missing-message-id"
  | "malformed-json"
  | "unknown-type"
  | "unsupported-version"
  | "invalid-payload"
  | "no-handler"
  | "poison"
  | "attempts-exhausted";

export interface InboundEvent<P = unknown> {
  type: EventType;
  version: number;
  payload: P;
  envelope: Envelope;
  /** 0 on first delivery, n after n retries through the tiers. */
  attempt: number;
  /** The broker's redelivered flag: a previous delivery of this copy was not acked. */
  redelivered: boolean;
  headers: Record<string, unknown>;
}

export type Inbound = { ok: true; event: InboundEvent } | { ok: false; reason: ParkReason; detail: string };

const str = (v: unknown): string | undefined =>
  typeof v === "string" ? v : Buffer.isBuffer(v) ? v.toString("utf8") : undefined;

export function attemptOf(headers: Record<string, unknown>): number {
  const n = Number(headers[ATTEMPT_HEADER] ?? 0);
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

export function readInbound(msg: ConsumeMessage): Inbound {
  const p = msg.properties;
  const headers = (p.headers ?? {}) as Record<string, unknown>;
  const messageId = str(p.messageId);
  if (!messageId) return { ok: false, reason: "missing-message-id", detail: "no messageId property" };
  let body: unknown;
  try {
    body = JSON.parse(msg.content.toString("utf8"));
  } catch (e) {
    return { ok: false, reason: "malformed-json", detail: (e as Error).message };
  }
  const type = str(p.type);
  const v = validateEvent(type, headers[HEADERS.schemaVersion], body);
  if (!v.ok) return { ok: false, reason: v.reason, detail: v.detail };
  const envelope: Envelope = {
    messageId,
    type: v.type,
    schemaVersion: v.version,
    correlationId: str(headers[HEADERS.correlationId]) ?? messageId,
    causationId: str(headers[HEADERS.causationId]) ?? messageId,
    ...(str(headers[HEADERS.traceparent]) ? { traceparent: str(headers[HEADERS.traceparent]) } : {}),
    ...(typeof p.timestamp === "number" ? { timestamp: p.timestamp * 1000 } : {}),
  };
  return {
    ok: true,
    event: {
      type: v.type,
      version: v.version,
      payload: v.payload,
      envelope,
      attempt: attemptOf(headers),
      redelivered: msg.fields.redelivered,
      headers,
    },
  };
}

// Reads an AMQP delivery into a validated event, or the reason it must be parked. Nothing here throws.
import { createHash } from "node:crypto";
import { type Envelope, type EventType, HEADERS, isTraceparent, validateEvent } from "@orderflow/contracts";
import type { ConsumeMessage } from "amqplib";

/** Our own attempt counter (x-death counts broker hops, not handler attempts). */
export const ATTEMPT_HEADER = "x-retry-attempt";

export type ParkReason =
  | "missing-message-id"
  | "invalid-header"
  | "malformed-json"
  | "unknown-type"
  | "unsupported-version"
  | "invalid-payload"
  | "no-handler"
  | "misrouted"
  | "poison"
  | "attempts-exhausted"
  | "sequence-gap";

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
  /** sha256 (hex) of the body as it arrived: tells a redelivery from another message under the same id. */
  contentHash: string;
  /** An ordered stream's key and this message's place in it (x-ordering-key, x-sequence), when it has them. */
  stream?: { key: string; sequence: number };
}

export type Inbound = { ok: true; event: InboundEvent } | { ok: false; reason: ParkReason; detail: string };

const str = (v: unknown): string | undefined =>
  typeof v === "string" ? v : Buffer.isBuffer(v) ? v.toString("utf8") : undefined;

// A message id and the headers used as keys end up in keys, log lines and jsonb columns: printable
// ASCII only (no NUL, no control character, no surrogate), bounded. Checked before anything else reads them.
const KEY = /^[\x21-\x7E]{1,200}$/;

function invalidKeyHeader(messageId: string, headers: Record<string, unknown>): string | undefined {
  if (!KEY.test(messageId))
    return `messageId ${JSON.stringify(messageId.slice(0, 80))} is not 1-200 printable ASCII characters`;
  for (const name of [HEADERS.correlationId, HEADERS.causationId]) {
    if (headers[name] === undefined) continue;
    const v = str(headers[name]);
    if (v === undefined || !KEY.test(v)) return `header ${name} is not 1-200 printable ASCII characters`;
  }
  return undefined;
}

// An ordering key is "aggregateType:aggregateId": no control character, bounded like the ids it joins.
const ORDERING_KEY = /^[^\p{Cc}\p{Cs}]{1,500}$/u;

/** The stream headers: both or neither, a sane key and a sequence from 1. */
function streamOf(headers: Record<string, unknown>): { key: string; sequence: number } | string | undefined {
  const rawKey = headers[HEADERS.orderingKey];
  const rawSeq = headers[HEADERS.sequence];
  if (rawKey === undefined && rawSeq === undefined) return undefined;
  const key = str(rawKey);
  if (key === undefined || !ORDERING_KEY.test(key))
    return `header ${HEADERS.orderingKey} is not 1-500 characters without control characters`;
  const sequence = typeof rawSeq === "string" ? Number(rawSeq) : rawSeq;
  if (typeof sequence !== "number" || !Number.isSafeInteger(sequence) || sequence < 1)
    return `header ${HEADERS.sequence} is not an integer from 1 (with ${HEADERS.orderingKey})`;
  return { key, sequence };
}

export function attemptOf(headers: Record<string, unknown>): number {
  const n = Number(headers[ATTEMPT_HEADER] ?? 0);
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

export function readInbound(msg: ConsumeMessage): Inbound {
  const p = msg.properties;
  const headers = (p.headers ?? {}) as Record<string, unknown>;
  const messageId = str(p.messageId);
  if (!messageId) return { ok: false, reason: "missing-message-id", detail: "no messageId property" };
  const badHeader = invalidKeyHeader(messageId, headers);
  if (badHeader) return { ok: false, reason: "invalid-header", detail: badHeader };
  const stream = streamOf(headers);
  if (typeof stream === "string") return { ok: false, reason: "invalid-header", detail: stream };
  let body: unknown;
  try {
    body = JSON.parse(msg.content.toString("utf8"));
  } catch (e) {
    return { ok: false, reason: "malformed-json", detail: (e as Error).message };
  }
  const type = str(p.type);
  const v = validateEvent(type, headers[HEADERS.schemaVersion], body);
  if (!v.ok) return { ok: false, reason: v.reason, detail: v.detail };
  const tp = str(headers[HEADERS.traceparent]) ?? "";
  const envelope: Envelope = {
    messageId,
    type: v.type,
    schemaVersion: v.version,
    correlationId: str(headers[HEADERS.correlationId]) ?? messageId,
    causationId: str(headers[HEADERS.causationId]) ?? messageId,
    // Trace context is advice, not a key: one that is not W3C's is dropped, the message kept.
    ...(isTraceparent(tp) ? { traceparent: tp } : {}),
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
      contentHash: createHash("sha256").update(msg.content).digest("hex"),
      ...(stream ? { stream } : {}),
    },
  };
}

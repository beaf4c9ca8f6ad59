// Moving a delivery elsewhere: to a retry tier (the consumer republishes, then acks the original) or to
// the parking lot with the reason in headers. Both keep the original body and properties, so a redrive
// puts back exactly what arrived.
import type { ConsumeMessage, Options } from "amqplib";
import { ATTEMPT_HEADER, type ParkReason } from "./inbound.ts";
import type { ConfirmPublisher, OutgoingMessage } from "./publisher-types.ts";
import { EXCHANGES, parkingRoutingKey, type RetryTier, retryRoutingKey } from "./topology.ts";

export const PARK_HEADERS = {
  reason: "x-parked-reason",
  detail: "x-parked-detail",
  at: "x-parked-at",
  queue: "x-original-queue",
  exchange: "x-original-exchange",
  routingKey: "x-original-routing-key",
  consumer: "x-parked-by",
} as const;

/**
 * The properties worth carrying over. userId is dropped (the broker checks it against the publisher).
 * A message parked for having no id keeps having none ("" is not sent: see publish-batch.ts).
 */
export function carriedProperties(
  msg: Pick<ConsumeMessage, "properties">,
  headers: Record<string, unknown>,
): OutgoingMessage["properties"] {
  const p = msg.properties;
  const out: Options.Publish & { messageId: string } = { persistent: true, headers, messageId: "" };
  if (p.messageId !== undefined) out.messageId = String(p.messageId);
  if (p.type !== undefined) out.type = p.type;
  if (p.contentType !== undefined) out.contentType = p.contentType;
  if (p.contentEncoding !== undefined) out.contentEncoding = p.contentEncoding;
  if (p.correlationId !== undefined) out.correlationId = p.correlationId;
  if (p.timestamp !== undefined) out.timestamp = p.timestamp;
  if (p.appId !== undefined) out.appId = p.appId;
  return out;
}

function baseHeaders(msg: ConsumeMessage): Record<string, unknown> {
  const h = { ...((msg.properties.headers ?? {}) as Record<string, unknown>) };
  // Set by the quorum queue on redelivery; meaningless on a new copy.
  delete h["x-delivery-count"];
  return h;
}

export function retryTo(
  publisher: ConfirmPublisher,
  queue: string,
  msg: ConsumeMessage,
  tier: RetryTier,
  nextAttempt: number,
  error: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const headers = {
    ...baseHeaders(msg),
    ...extra,
    [ATTEMPT_HEADER]: nextAttempt,
    "x-last-error": error.slice(0, 500),
  };
  return publisher.publish({
    exchange: EXCHANGES.retry,
    routingKey: retryRoutingKey(queue, tier),
    body: msg.content,
    properties: carriedProperties(msg, headers),
  });
}

export function parkTo(
  publisher: ConfirmPublisher,
  queue: string,
  consumer: string,
  msg: ConsumeMessage,
  reason: ParkReason,
  detail: string,
): Promise<void> {
  const headers = {
    ...baseHeaders(msg),
    [PARK_HEADERS.reason]: reason,
    [PARK_HEADERS.detail]: detail.slice(0, 1_000),
    [PARK_HEADERS.at]: new Date().toISOString(),
    [PARK_HEADERS.queue]: queue,
    [PARK_HEADERS.exchange]: msg.fields.exchange,
    [PARK_HEADERS.routingKey]: msg.fields.routingKey,
    [PARK_HEADERS.consumer]: consumer,
  };
  return publisher.publish({
    exchange: EXCHANGES.parking,
    routingKey: parkingRoutingKey(queue),
    body: msg.content,
    properties: carriedProperties(msg, headers),
  });
}

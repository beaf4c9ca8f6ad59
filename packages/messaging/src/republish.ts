// Moving a delivery elsewhere: to a retry tier (the consumer republishes, then acks the original) or to
// the parking lot with the reason in headers. Both keep the original body and properties, so a redrive
// puts back exactly what arrived.
import type { ConsumeMessage, Options } from "amqplib";
import type { ConfirmPublisher } from "./confirm-publisher.ts";
import { ATTEMPT_HEADER, type ParkReason } from "./inbound.ts";
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

/** The properties worth carrying over. userId is dropped (the broker checks it against the publisher). */
export function carriedProperties(msg: ConsumeMessage, headers: Record<string, unknown>): Options.Publish {
  const p = msg.properties;
  const out: Options.Publish = { persistent: true, headers };
  if (p.messageId !== undefined) out.messageId = p.messageId;
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
): Promise<void> {
  const headers = { ...baseHeaders(msg), [ATTEMPT_HEADER]: nextAttempt, "x-last-error": error.slice(0, 500) };
  return publisher.publish(
    EXCHANGES.retry,
    retryRoutingKey(queue, tier),
    msg.content,
    carriedProperties(msg, headers),
  );
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
  return publisher.publish(
    EXCHANGES.parking,
    parkingRoutingKey(queue),
    msg.content,
    carriedProperties(msg, headers),
  );
}

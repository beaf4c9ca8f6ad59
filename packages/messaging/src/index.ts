export {
  type ConfirmPublisher,
  type ConfirmPublisherOptions,
  createConfirmPublisher,
} from "./confirm-publisher.ts";
export {
  type BrokerConnection,
  type ConnectionHealth,
  type ConnectionOptions,
  createBrokerConnection,
} from "./connection.ts";
export {
  type Consumer,
  type ConsumerFaults,
  type ConsumerHealth,
  type ConsumerOptions,
  type Handler,
  type HandlerResult,
  type Handlers,
  type LabConsumerPitfalls,
  type Outcome,
  startConsumer,
} from "./consumer.ts";
export { createRedisDedupCache, type DedupCache, type RedisDedupOptions } from "./dedup-cache.ts";
export { MessagingError, type MessagingErrorCode, PoisonMessageError, TransientError } from "./errors.ts";
export { ATTEMPT_HEADER, type InboundEvent, type ParkReason, readInbound } from "./inbound.ts";
export { claimInbox, cleanupInbox, type TransactionRunner } from "./inbox.ts";
export { consoleLogger, type Logger, silentLogger } from "./logger.ts";
export { publishEvent } from "./publish-event.ts";
export { type RedriveResult, redrive } from "./redrive.ts";
export { PARK_HEADERS } from "./republish.ts";
export { assertRetention, type RetentionConfig, redeliveryHorizonMs } from "./retention.ts";
export {
  assertTopology,
  consumerRequirements,
  EXCHANGES,
  parkingQueue,
  RETRY_TIERS,
  type RetryTier,
  retryRoutingKey,
  TIER_MS,
} from "./topology.ts";

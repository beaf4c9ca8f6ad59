// @orderflow/messaging: everything between a service and RabbitMQ (see README.md for the surface).
import path from "node:path";
import { fileURLToPath } from "node:url";

export { createConfirmPublisher } from "./confirm-publisher.ts";
export {
  type BrokerConnection,
  type ConnectionHealth,
  type ConnectionOptions,
  createBrokerConnection,
} from "./connection.ts";
export {
  type BatchHandler,
  type BatchHandlers,
  type Consumer,
  type ConsumerFaults,
  type ConsumerHealth,
  type ConsumerOptions,
  type Handler,
  type HandlerResult,
  type Handlers,
  type Outcome,
  startConsumer,
} from "./consumer.ts";
export { createRedisDedupCache, type DedupCache, type RedisDedupOptions } from "./dedup-cache.ts";
export { MessagingError, type MessagingErrorCode, PoisonMessageError, TransientError } from "./errors.ts";
export { ATTEMPT_HEADER, type InboundEvent, type ParkReason, readInbound } from "./inbound.ts";
export {
  claimInbox,
  claimInboxMany,
  cleanupInbox,
  type Inbox,
  type InboxEntry,
  sqlInbox,
  type Turn,
  takeTurnInbox,
} from "./inbox.ts";
export { propertiesOf as publishOptions } from "./publish-batch.ts";
export { publishEvent } from "./publish-event.ts";
export type {
  ConfirmPublisher,
  ConfirmPublisherOptions,
  OutgoingMessage,
  PublishOutcome,
} from "./publisher-types.ts";
export { REASONS as PUBLISH_REASONS } from "./publisher-types.ts";
export { type RedriveResult, redrive } from "./redrive.ts";
export { PARK_HEADERS } from "./republish.ts";
export { assertRetention, type RetentionConfig, redeliveryHorizonMs } from "./retention.ts";
export type { Delivery, RetryPlan, Settle } from "./settle.ts";
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
export { OutOfTurn, TURN_WAIT_HEADER } from "./turn.ts";

/** The inbox's Prisma-format migrations folder, for `applyMigrations({ migrationsDirs: [...] })`. */
export const INBOX_MIGRATIONS_DIR = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "prisma",
  "migrations",
);

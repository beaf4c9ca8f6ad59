export { amqpProperties, CONTENT_TYPE, type Envelope, HEADERS, isTraceparent, isUuid } from "./envelope.ts";
export * from "./events.ts";
export {
  contracts,
  currentVersion,
  EVENT_TYPES,
  type EventPayload,
  type EventType,
  isEventType,
  orderedByAggregate,
} from "./registry.ts";
export { doneOnConfirm, publishedBy, REPLIES } from "./replies.ts";
export { grantableReservation, pointsFor } from "./rules.ts";
export { assertPayload, type InvalidReason, type Validated, validateEvent } from "./validate.ts";

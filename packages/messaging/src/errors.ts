// A small error hierarchy with stable codes, so callers branch on `code`, not on message text.

export type MessagingErrorCode =
  | "NOT_CONNECTED"
  | "TOPOLOGY_MISSING"
  | "CONFIRM_TIMEOUT"
  | "PUBLISH_NACKED"
  | "UNROUTABLE"
  | "REFUSED"
  | "IN_FLIGHT_FULL"
  | "CHANNEL_CLOSED"
  | "RETENTION_TOO_SHORT"
  | "CLOSED";

export class MessagingError extends Error {
  constructor(
    readonly code: MessagingErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "MessagingError";
  }
}

/** Thrown by a handler for a failure that may pass (database down, timeout): the message is retried later. */
export class TransientError extends Error {
  override name = "TransientError";
}

/** Thrown by a handler for a message that can never succeed: it goes to the parking lot at once. */
export class PoisonMessageError extends Error {
  override name = "PoisonMessageError";
}

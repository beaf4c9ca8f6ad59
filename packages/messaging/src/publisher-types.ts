// The confirm publisher's shapes and its verdicts, apart from the parts that implement it.
import type { Logger } from "@orderflow/logging";
import type { Options } from "amqplib";
import { MessagingError, type MessagingErrorCode } from "./errors.ts";

/** One message to publish. `messageId` is what consumers deduplicate on and what a return is matched by. */
export interface OutgoingMessage {
  exchange: string;
  routingKey: string;
  body: Buffer;
  properties: Options.Publish & { messageId: string };
}

/**
 * - confirmed: the broker acked and did not return it (for a quorum queue: replicated to a majority).
 * - refused: the broker said no (returned as unroutable under `mandatory`, an isolated nack, too large to
 *   send). Unroutable and too large are about the message: worth a retry with backoff, and eventually a
 *   parking. A nack (reason `REASONS.nacked`) is about the queue; the outbox retries it without an attempt.
 * - unavailable: no answer (no connection, connection lost, silence until the confirm timeout as when
 *   quorum is lost) or a run of nacks. Never the message's fault: it must not count as an attempt.
 */
export type PublishOutcome =
  | {
      status: "confirmed";
      /** From the publish to the broker's confirm (for a quorum queue: a majority's fsync), in seconds. */
      confirmSeconds?: number;
    }
  | { status: "refused"; reason: string }
  | { status: "unavailable"; reason: string };

export interface ConfirmPublisherOptions {
  /** Silence longer than this after the last publish of a batch counts as an outage. Default 10000. */
  confirmTimeoutMs?: number;
  /** Cap on unconfirmed publishes; a silent broker cannot make us buffer without bound. Default 2000. */
  maxInFlight?: number;
  /** Confirm channels on the connection; batches take them in turn (the cap is shared). Default 1. */
  channels?: number;
  /** A run of this many consecutive nacks is a channel/queue problem: unavailable, and the publisher recycles. Default 5. */
  recycleAfterNacks?: number;
  /**
   * What a confirm timeout, a run of nacks or a failed channel open recycles. "connection" (default):
   * the publisher owns its connection and moves to another node. "channel": the connection is shared
   * (a consumer's), so only the publisher's own channel is closed and opened again on it.
   */
  recycle?: "connection" | "channel";
  /** Bodies above this are refused without sending: the broker would close the channel on them. Default 16 MiB. */
  maxMessageBytes?: number;
  log?: Logger;
  /** Called with the number of publishes awaiting a confirm whenever it changes (a gauge). */
  onWindow?: (inFlight: number) => void;
}

export interface ConfirmPublisher {
  /** One verdict per message, in order. Never throws. */
  publishBatch(messages: OutgoingMessage[]): Promise<PublishOutcome[]>;
  /**
   * Resolves only when the broker confirmed the message; otherwise throws a MessagingError whose code
   * says why (UNROUTABLE, PUBLISH_NACKED, REFUSED, CONFIRM_TIMEOUT, IN_FLIGHT_FULL, CHANNEL_CLOSED,
   * NOT_CONNECTED, CLOSED). Waits up to the confirm timeout for a channel first.
   */
  publish(message: OutgoingMessage): Promise<void>;
  isConnected(): boolean;
  /** Resolves true once a channel is open, false after `timeoutMs`. */
  waitUntilConnected(timeoutMs: number): Promise<boolean>;
  inFlight(): number;
  /** Closes its confirm channels; the connection is the caller's to close. */
  close(): Promise<void>;
}

// The reasons this package gives; publish() turns them back into error codes.
export const REASONS = {
  nacked: "nacked by the broker",
  notConnected: "not connected",
  channelLost: "channel lost",
  windowFull: "in-flight cap: no confirms",
  confirmTimeout: "confirm timeout",
  nackRun: "run of nacks",
} as const;

const UNAVAILABLE_CODES: Record<string, MessagingErrorCode> = {
  [REASONS.notConnected]: "NOT_CONNECTED",
  [REASONS.windowFull]: "IN_FLIGHT_FULL",
  [REASONS.confirmTimeout]: "CONFIRM_TIMEOUT",
  [REASONS.nackRun]: "PUBLISH_NACKED",
};

/** The error publish() throws for an outcome other than confirmed. */
export function outcomeError(o: Exclude<PublishOutcome, { status: "confirmed" }>, m: OutgoingMessage) {
  const where = `${m.exchange || "(default)"} / ${m.routingKey}`;
  if (o.status === "unavailable")
    return new MessagingError(UNAVAILABLE_CODES[o.reason] ?? "CHANNEL_CLOSED", `${o.reason} (${where})`);
  if (o.reason === REASONS.nacked) return new MessagingError("PUBLISH_NACKED", `${o.reason} (${where})`);
  if (o.reason.startsWith("unroutable"))
    return new MessagingError("UNROUTABLE", `no queue is bound for ${where}: ${o.reason}`);
  return new MessagingError("REFUSED", `${o.reason} (${where})`);
}

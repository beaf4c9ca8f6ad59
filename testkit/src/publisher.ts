// Publishing with the broker's confirm, for tests and the lab: a forged event, a poison message, a copy
// of what the relay already sent. Built on @orderflow/messaging's confirm publisher (the one the relay
// and the consumers use), so a message counts as sent only once the broker confirmed it, and a message no
// queue takes is refused (it goes out `mandatory`) instead of vanishing at the exchange.
// This file imports no test runner: the lab's fault actions use it at run time.
import type { Envelope } from "@orderflow/contracts";
import {
  type BrokerConnection,
  type ConfirmPublisher,
  createBrokerConnection,
  createConfirmPublisher,
  type OutgoingMessage,
  publishEvent,
} from "@orderflow/messaging";

export type { OutgoingMessage };

export interface ConfirmedPublisher {
  /**
   * Resolves once the broker confirmed the message; otherwise rejects with messaging's error, whose code
   * says why (UNROUTABLE, PUBLISH_NACKED, CONFIRM_TIMEOUT...). A message whose `messageId` is "" goes out
   * without one.
   */
  publish(message: OutgoingMessage): Promise<void>;
  /** Publishes every message in one window; rejects unless the broker confirmed them all. */
  publishAll(messages: OutgoingMessage[]): Promise<void>;
  /** An event as consumers expect it: to orderflow.events, routing key = its type, body = payload JSON. */
  publishEvent(envelope: Envelope, payload: unknown): Promise<void>;
  close(): Promise<void>;
}

export interface ConfirmedPublisherOptions {
  /** Shown in the broker's connection list. */
  name?: string;
  /** How long to wait for a node to take the connection and open the confirm channel. Default 30000. */
  connectTimeoutMs?: number;
}

/** Connects to the first node of `urls` that answers (failing over to the others) and opens the channel. */
export async function openConfirmedPublisher(
  urls: readonly string[],
  { name = "orderflow-harness", connectTimeoutMs = 30_000 }: ConfirmedPublisherOptions = {},
): Promise<ConfirmedPublisher> {
  const conn: BrokerConnection = createBrokerConnection({ urls: [...urls], name });
  let publisher: ConfirmPublisher | undefined;
  try {
    await conn.ready(connectTimeoutMs);
    publisher = createConfirmPublisher(conn);
    if (!(await publisher.waitUntilConnected(connectTimeoutMs)))
      throw new Error(`no confirm channel on the broker within ${connectTimeoutMs} ms`);
  } catch (e) {
    await publisher?.close().catch(() => {});
    await conn.close().catch(() => {});
    throw e;
  }
  const p = publisher;
  return {
    publish: (message) => p.publish(message),
    async publishAll(messages) {
      const outcomes = await p.publishBatch(messages);
      const failed = outcomes.flatMap((o, i) =>
        o.status === "confirmed" ? [] : [`${messages[i]?.routingKey}: ${o.status} (${o.reason})`],
      );
      if (failed.length > 0)
        throw new Error(`${failed.length} of ${messages.length} not confirmed: ${failed.join("; ")}`);
    },
    publishEvent: (envelope, payload) => publishEvent(p, envelope, payload),
    async close() {
      await p.close().catch(() => {});
      await conn.close().catch(() => {});
    },
  };
}

/** Opens a publisher, runs `fn` with it, and closes it whatever happens. */
export async function withConfirmedPublisher<T>(
  urls: readonly string[],
  fn: (p: ConfirmedPublisher) => Promise<T>,
  opts?: ConfirmedPublisherOptions,
): Promise<T> {
  const p = await openConfirmedPublisher(urls, opts);
  try {
    return await fn(p);
  } finally {
    await p.close();
  }
}

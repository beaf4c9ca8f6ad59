// The one confirm publisher (outbox relay, consumer retries and parkings, parking-lot redrive): one confirm
// channel over a BrokerConnection the caller owns (failover, reconnect delay outside the leader-election
// window), a window of many publishes in flight, and a verdict per message (publisher-types.ts).
//
// Its parts: confirm-channel.ts keeps the channel and the returns, confirm-window.ts caps what awaits a
// confirm, publish-batch.ts publishes one window and judges it. A confirm timeout or a run of nacks
// recycles the CONNECTION (conn.reconnect): a channel opened during a leader election can stay broken
// until the dead node returns, and with quorum lost the node stays silent; another node is the way out.
// Give the relay a connection of its own, so that recycling it never disturbs a consumer.
// A publisher on a consumer's connection (its retries and parkings) recycles only its own channel
// (`recycle: "channel"`), as the consumer must keep its deliveries and their acks.
import { silentLogger } from "@orderflow/logging";
import { keepConfirmChannel } from "./confirm-channel.ts";
import { createConfirmWindow } from "./confirm-window.ts";
import type { BrokerConnection } from "./connection-types.ts";
import { MessagingError } from "./errors.ts";
import { createBatchPublisher } from "./publish-batch.ts";
import { type ConfirmPublisher, type ConfirmPublisherOptions, outcomeError } from "./publisher-types.ts";

export function createConfirmPublisher(
  conn: BrokerConnection,
  opts: ConfirmPublisherOptions = {},
): ConfirmPublisher {
  const log = opts.log ?? silentLogger;
  const confirmTimeoutMs = opts.confirmTimeoutMs ?? 10_000;
  const recycleMode = opts.recycle ?? "connection";
  const keeper = keepConfirmChannel(conn, log, recycleMode);
  const window = createConfirmWindow(opts.maxInFlight ?? 2_000, opts.onWindow);
  const publishBatch = createBatchPublisher({
    keeper,
    window,
    // "connection": drops it and moves on to the next node ("amqp.lost" says "recycled: ...").
    recycle: (reason) => (recycleMode === "connection" ? conn.reconnect(reason) : keeper.recycle(reason)),
    confirmTimeoutMs,
    recycleAfterNacks: opts.recycleAfterNacks ?? 5,
    maxMessageBytes: opts.maxMessageBytes ?? 16 * 1024 * 1024,
  });
  let closed = false;
  return {
    publishBatch,
    async publish(message) {
      if (closed) throw new MessagingError("CLOSED", "publisher closed");
      // A single publish waits out a reconnect (a batch caller has its own health gate instead).
      if (!keeper.current() && !(await keeper.waitUntilConnected(confirmTimeoutMs)))
        throw new MessagingError("NOT_CONNECTED", `no confirm channel within ${confirmTimeoutMs} ms`);
      const [o] = await publishBatch([message]);
      if (o && o.status !== "confirmed") throw outcomeError(o, message);
    },
    isConnected: () => keeper.current() !== undefined,
    waitUntilConnected: (timeoutMs) => keeper.waitUntilConnected(timeoutMs),
    inFlight: () => window.size(),
    async close() {
      closed = true;
      await keeper.close();
    },
  };
}

// The one confirm publisher (outbox relay, consumer retries and parkings, parking-lot redrive): one or
// more confirm channels over a BrokerConnection the caller owns (failover, reconnect delay outside the
// leader-election window), a window of many publishes in flight, and a verdict per message
// (publisher-types.ts).
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
  const window = createConfirmWindow(opts.maxInFlight ?? 2_000, opts.onWindow);
  // Each channel is a process on the broker that routes its publishes and gathers their confirms, so
  // batches on two channels are handled side by side (bench/README measures what that buys the relay).
  const lanes = Array.from({ length: Math.max(1, opts.channels ?? 1) }, () => {
    const keeper = keepConfirmChannel(conn, log, recycleMode);
    const publishBatch = createBatchPublisher({
      keeper,
      window,
      // "connection": drops it and moves on to the next node ("amqp.lost" says "recycled: ...").
      recycle: (reason) => (recycleMode === "connection" ? conn.reconnect(reason) : keeper.recycle(reason)),
      confirmTimeoutMs,
      recycleAfterNacks: opts.recycleAfterNacks ?? 5,
      maxMessageBytes: opts.maxMessageBytes ?? 16 * 1024 * 1024,
    });
    return { keeper, publishBatch };
  });
  const first = lanes[0] as (typeof lanes)[number];
  let turn = 0;
  // Batches take the channels in turn, skipping one that is not open; with none open the first answers
  // "not connected". A batch stays on one channel, so its messages keep their order.
  const nextLane = () => {
    for (let k = 0; k < lanes.length; k++) {
      const lane = lanes[(turn + k) % lanes.length] as (typeof lanes)[number];
      if (lane.keeper.current()) {
        turn = (turn + k + 1) % lanes.length;
        return lane;
      }
    }
    return first;
  };
  const waitUntilConnected = async (timeoutMs: number) =>
    lanes.some((l) => l.keeper.current()) ||
    (await Promise.race(lanes.map((l) => l.keeper.waitUntilConnected(timeoutMs))));
  let closed = false;
  return {
    publishBatch: (messages) => nextLane().publishBatch(messages),
    async publish(message) {
      if (closed) throw new MessagingError("CLOSED", "publisher closed");
      // A single publish waits out a reconnect (a batch caller has its own health gate instead).
      if (!(await waitUntilConnected(confirmTimeoutMs)))
        throw new MessagingError("NOT_CONNECTED", `no confirm channel within ${confirmTimeoutMs} ms`);
      const [o] = await nextLane().publishBatch([message]);
      if (o && o.status !== "confirmed") throw outcomeError(o, message);
    },
    isConnected: () => lanes.some((l) => l.keeper.current() !== undefined),
    waitUntilConnected,
    inFlight: () => window.size(),
    async close() {
      closed = true;
      await Promise.all(lanes.map((l) => l.keeper.close()));
    },
  };
}

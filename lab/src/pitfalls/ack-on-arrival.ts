// Pitfall auto-ack: the consumer acks each delivery as it arrives, before its handler runs, which is what
// consuming with noAck amounts to: the broker forgets a message as soon as it has handed it over, so a
// consumer that dies holding work loses it. Acked on arrival, the prefetch window never fills either: the
// broker pushes its whole backlog into the process at once. Compare packages/messaging/src/settle.ts,
// which acks a delivery only after its transaction committed.
import { silentLogger } from "@orderflow/logging";
import type { Settle } from "@orderflow/messaging";

export const ackOnArrival = (own: Settle): Settle => ({
  ...own,
  received(ch, msg) {
    own.received(ch, msg);
    own.ack({ ch, msg, log: silentLogger });
  },
  // The broker has forgotten it already: there is nothing to give back, the delivery is lost. (A retry or
  // a parking whose copy cannot be published falls back to a requeue inside the consumer's own settle;
  // the broker refuses that reject and closes the channel: the message is lost all the same.)
  requeue: (d, error) => d.log.warn({ error }, "consumer.requeue_lost"),
});

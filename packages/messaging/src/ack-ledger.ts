// Acks with `multiple`: one basic.ack settles every delivery up to a tag, and on a quorum queue each ack
// frame is one Raft command, so a batch of 25 acked this way costs the broker one settle instead of 25.
// `multiple` settles everything delivered on the channel below the tag, so an ack may only go out up to
// the first delivery still being worked on: later ones wait here until the gap closes. Deliveries given
// back (reject) or moved (retry, parking, each acked once its copy is confirmed) close their gap too.
import type { Channel, ConsumeMessage } from "amqplib";

export interface AckLedger {
  /** Called for every delivery, in the order the channel delivered them. */
  delivered(msg: ConsumeMessage): void;
  /** This delivery may be acked: acks every delivery up to the first one still open. */
  ack(msg: ConsumeMessage): void;
  /** This delivery was settled another way (a reject): it no longer holds back the acks behind it. */
  settledElsewhere(msg: ConsumeMessage): void;
}

/** One ledger per channel: delivery tags are the channel's own sequence (1, 2, 3...). */
export function createAckLedger(ch: Channel, onAckError: (e: Error) => void): AckLedger {
  // Deliveries not yet flushed, in delivery order, and the state of each (by delivery tag).
  let queue: ConsumeMessage[] = [];
  let head = 0;
  const state = new Map<number, "open" | "ack" | "gone">();

  const flush = () => {
    let upTo: ConsumeMessage | undefined;
    while (head < queue.length) {
      const msg = queue[head] as ConsumeMessage;
      const s = state.get(msg.fields.deliveryTag);
      if (s === "open") break;
      if (s === "ack") upTo = msg;
      state.delete(msg.fields.deliveryTag);
      head++;
    }
    // Compact now and then, so the array does not grow with the channel's life.
    if (head > 1_024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
    if (!upTo) return;
    try {
      ch.ack(upTo, true);
    } catch (e) {
      // The channel died after commit: the broker redelivers and the inbox turns each into a no-op.
      onAckError(e as Error);
    }
  };
  // Flushed once per turn of the event loop: the acks of a batch (and of batches finishing together)
  // leave as one frame.
  let scheduled = false;
  const close = (msg: ConsumeMessage, how: "ack" | "gone") => {
    if (state.get(msg.fields.deliveryTag) !== "open") return;
    state.set(msg.fields.deliveryTag, how);
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      flush();
    });
  };

  return {
    delivered(msg) {
      queue.push(msg);
      state.set(msg.fields.deliveryTag, "open");
    },
    ack: (msg) => close(msg, "ack"),
    settledElsewhere: (msg) => close(msg, "gone"),
  };
}

/** The ledger of each channel, made on first use (a channel's tags are its own). */
export function ackLedgers(onAckError: (e: Error) => void): (ch: Channel) => AckLedger {
  const ledgers = new WeakMap<Channel, AckLedger>();
  return (ch) => {
    let l = ledgers.get(ch);
    if (!l) {
      l = createAckLedger(ch, onAckError);
      ledgers.set(ch, l);
    }
    return l;
  };
}

// Pitfall no-confirms: the relay's publisher as it is written without publisher confirms. It writes each
// message on a plain channel and calls it sent as soon as the write returns, so the relay marks the row
// sent at once. Whatever the broker never received (a link that silently drops bytes, a node that dies
// with the message in its socket buffer) is gone while the outbox says "sent". It notices only a channel
// that is already closed. Compare packages/messaging/src/publish-batch.ts, which waits for each confirm.
import type { ConfirmPublisher, OutgoingMessage, PublishOutcome } from "@orderflow/messaging";
import type { RelayPublisherFactory } from "@orderflow/outbox";
import type { Channel } from "amqplib";

export const fireAndForgetPublisher: RelayPublisherFactory = (conn) => {
  let channel: Channel | undefined;
  let opening: Promise<Channel | undefined> | undefined;
  conn.onDisconnect(() => {
    channel = undefined;
  });
  const open = async (): Promise<Channel | undefined> => {
    try {
      const ch = await conn.createChannel();
      ch.on("close", () => {
        if (channel === ch) channel = undefined;
      });
      ch.on("error", () => {});
      channel = ch;
      return ch;
    } catch {
      return undefined;
    } finally {
      opening = undefined;
    }
  };
  // One channel at a time, however many batches ask for it while it opens.
  const current = (): Promise<Channel | undefined> => {
    if (channel) return Promise.resolve(channel);
    opening ??= open();
    return opening;
  };
  const publishBatch = async (messages: OutgoingMessage[]): Promise<PublishOutcome[]> => {
    const ch = await current();
    return messages.map((m): PublishOutcome => {
      if (!ch) return { status: "unavailable", reason: "no channel" };
      try {
        ch.publish(m.exchange, m.routingKey, m.body, m.properties);
        return { status: "confirmed" };
      } catch (e) {
        return { status: "unavailable", reason: (e as Error).message };
      }
    });
  };
  const publisher: ConfirmPublisher = {
    publishBatch,
    async publish(m) {
      const [o] = await publishBatch([m]);
      if (o?.status !== "confirmed") throw new Error(o?.reason ?? "not sent");
    },
    isConnected: () => conn.health().connected,
    waitUntilConnected: (timeoutMs) =>
      conn.ready(timeoutMs).then(
        () => true,
        () => false,
      ),
    inFlight: () => 0,
    close: async () => {
      await channel?.close().catch(() => {});
    },
  };
  return publisher;
};

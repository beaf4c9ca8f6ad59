// The publishing half of the peers' workers (pg-boss, pg-transactional-outbox): one confirm channel,
// each message persistent with its id, resolved when the broker confirms it.
import amqp from "amqplib";
import { EXCHANGE } from "./scratch-queue.ts";

export interface PeerPublisher {
  publish(routingKey: string, messageId: string, body: Buffer): Promise<void>;
  close(): Promise<void>;
}

export async function openPeerPublisher(url: string): Promise<PeerPublisher> {
  const conn = await amqp.connect(url);
  conn.on("error", () => {});
  const ch = await conn.createConfirmChannel();
  let drained: Promise<void> | undefined;
  return {
    async publish(routingKey, messageId, body) {
      // The channel's buffer is full: wait for it to drain rather than buffer without bound.
      if (drained) await drained;
      await new Promise<void>((resolve, reject) => {
        const ok = ch.publish(
          EXCHANGE,
          routingKey,
          body,
          { persistent: true, messageId, contentType: "application/json", type: "order.created" },
          (err) => (err ? reject(err) : resolve()),
        );
        if (!ok && !drained)
          drained = new Promise<void>((r) =>
            ch.once("drain", () => {
              drained = undefined;
              r();
            }),
          );
      });
    },
    async close() {
      await ch.close().catch(() => {});
      await conn.close().catch(() => {});
    },
  };
}

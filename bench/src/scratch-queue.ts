// A scratch quorum queue bound to orderflow.events with a routing key of its own: the bench's
// messages reach it and nothing else, and no service queue sees them. Declared and deleted as the admin.
import { randomUUID } from "node:crypto";
import { amqpUrls, type Stack } from "@orderflow/infra";
import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from "amqplib";

export const EXCHANGE = "orderflow.events";

export interface ScratchQueue {
  queue: string;
  routingKey: string;
  /** Starts a plain consumer (manual ack, prefetch 500) calling `onMessage` per delivery. */
  consume(onMessage: (msg: ConsumeMessage) => void): Promise<() => Promise<void>>;
  purge(): Promise<number>;
  delete(): Promise<void>;
}

export async function createScratchQueue(stack: Stack, label: string): Promise<ScratchQueue> {
  const id = randomUUID().slice(0, 8);
  const queue = `bench.${label}.${id}`;
  // Under the order service's name: the benches publish as order-svc, whose topic permission allows
  // only routing keys that start with "order.".
  const routingKey = `order.bench-${label}.${id}`;
  const conn: ChannelModel = await amqp.connect(amqpUrls(stack, "admin")[0] as string);
  conn.on("error", () => {});
  const ch: Channel = await conn.createChannel();
  await ch.assertQueue(queue, { durable: true, arguments: { "x-queue-type": "quorum" } });
  await ch.bindQueue(queue, EXCHANGE, routingKey);
  let deleted = false;
  return {
    queue,
    routingKey,
    async consume(onMessage) {
      const cch = await conn.createChannel();
      await cch.prefetch(500);
      const { consumerTag } = await cch.consume(queue, (m) => {
        if (!m) return;
        onMessage(m);
        cch.ack(m);
      });
      return async () => {
        await cch.cancel(consumerTag).catch(() => {});
        await cch.close().catch(() => {});
      };
    },
    async purge() {
      return (await ch.purgeQueue(queue)).messageCount;
    },
    async delete() {
      if (deleted) return;
      deleted = true;
      await ch.deleteQueue(queue).catch(() => {});
      await ch.close().catch(() => {});
      await conn.close().catch(() => {});
    },
  };
}

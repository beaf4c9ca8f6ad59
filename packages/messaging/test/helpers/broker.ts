// Admin-side broker access for tests: publish raw messages (including malformed ones), purge, read the
// parking lot.
import { randomUUID } from "node:crypto";
import { amqpProperties, type Envelope, type EventType } from "@orderflow/contracts";
import { amqpUrls, type Stack } from "@orderflow/infra";
import amqp, { type ChannelModel, type ConfirmChannel, type GetMessage, type Options } from "amqplib";
import { consumerRequirements, EXCHANGES } from "../../src/index.ts";

export interface AdminBroker {
  model: ChannelModel;
  ch: ConfirmChannel;
  publishRaw(routingKey: string, body: Buffer | string, props: Options.Publish): Promise<void>;
  /** `headers` go beside the envelope's (e.g. `x-aggregate-id`, which the outbox sets on every message). */
  publishEvent(
    type: EventType,
    payload: unknown,
    envelope?: Partial<Envelope>,
    headers?: Record<string, string>,
  ): Promise<string>;
  purge(queue: string): Promise<void>;
  /** Takes (acks) every message in a queue. */
  drain(queue: string): Promise<GetMessage[]>;
  close(): Promise<void>;
}

export async function openAdminBroker(s: Stack, nodeIndex = 0): Promise<AdminBroker> {
  const urls = amqpUrls(s);
  const model = await amqp.connect(urls[nodeIndex] as string);
  // A node killed under a test must not crash the test process through an unhandled `error`.
  model.on("error", () => {});
  const ch = await model.createConfirmChannel();
  const confirm = (fn: (cb: (err: unknown) => void) => void) =>
    new Promise<void>((res, rej) => fn((err) => (err ? rej(new Error("nacked")) : res())));
  const api: AdminBroker = {
    model,
    ch,
    publishRaw: (rk, body, props) =>
      confirm((cb) =>
        ch.publish(EXCHANGES.events, rk, Buffer.from(body), { persistent: true, ...props }, cb),
      ),
    async publishEvent(type, payload, envelope = {}, headers = {}) {
      const messageId = envelope.messageId ?? randomUUID();
      const props = amqpProperties({
        messageId,
        type,
        schemaVersion: 1,
        correlationId: messageId,
        causationId: messageId,
        ...envelope,
      });
      await api.publishRaw(type, JSON.stringify(payload), {
        ...props,
        headers: { ...props.headers, ...headers },
      });
      return messageId;
    },
    async purge(queue) {
      await ch.purgeQueue(queue);
    },
    async drain(queue) {
      const out: GetMessage[] = [];
      for (;;) {
        const m = await ch.get(queue, { noAck: true });
        if (!m) return out;
        out.push(m);
      }
    },
    async close() {
      await ch.close().catch(() => {});
      await model.close().catch(() => {});
    },
  };
  return api;
}

/** Empties a work queue, its retry tiers and its parking lot. */
export async function purgeAll(b: AdminBroker, queue: string): Promise<void> {
  for (const q of consumerRequirements(queue).queues) await b.purge(q);
}

// Starts an inventory-side consumer as inventory-svc against a test database; records every outcome.
import { amqpUrls, type Stack } from "@orderflow/infra";
import {
  type Consumer,
  type ConsumerOptions,
  createBrokerConnection,
  type Handlers,
  type Outcome,
  startConsumer,
} from "../../src/index.ts";
import { recordEffect, type TestDatabase } from "./db.ts";
import { RETENTION } from "./factories.ts";

export const WORK_QUEUE = "inventory.order-events";

export interface TestConsumer {
  consumer: Consumer;
  conn: ReturnType<typeof createBrokerConnection>;
  outcomes: Outcome[];
  stop(): Promise<void>;
}

export const effectHandlers = (consumerName: string): Handlers => ({
  "order.created": async (ev, tx) => {
    await recordEffect(tx, consumerName, ev.envelope.messageId, ev.payload.orderId);
  },
  "order.cancelled": async (ev, tx) => {
    await recordEffect(tx, consumerName, ev.envelope.messageId, ev.payload.orderId);
  },
});

export async function startTestConsumer(
  s: Stack,
  db: TestDatabase,
  opts: Partial<Omit<ConsumerOptions, "connection">> & { urls?: string[] } = {},
): Promise<TestConsumer> {
  const consumerName = opts.consumerName ?? "inventory-test";
  const conn = createBrokerConnection({ urls: opts.urls ?? amqpUrls(s, "inventory"), name: consumerName });
  const outcomes: Outcome[] = [];
  const consumer = await startConsumer({
    queue: WORK_QUEUE,
    consumerName,
    handlers: effectHandlers(consumerName),
    retention: RETENTION,
    ...opts,
    connection: conn,
    transaction: opts.transaction ?? db.transaction,
    onOutcome: (o) => {
      outcomes.push(o);
      opts.onOutcome?.(o);
    },
  });
  return {
    consumer,
    conn,
    outcomes,
    async stop() {
      await consumer.stop();
      await conn.close();
    },
  };
}

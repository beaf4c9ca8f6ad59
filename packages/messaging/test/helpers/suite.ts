// The setup the consumer tests share: a database of their own, the admin broker, an empty work queue
// before each test, and every consumer a test started stopped after it.
import { openStack, type Stack } from "@orderflow/infra";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { type AdminBroker, openAdminBroker, purgeAll } from "./broker.ts";
import { type TestConsumer, WORK_QUEUE } from "./consumer.ts";
import { createTestDatabase, type TestDatabase } from "./db.ts";

export interface ConsumerSuite {
  s: Stack;
  /** Set in beforeAll. */
  db: TestDatabase;
  broker: AdminBroker;
  /** Push each consumer a test starts: afterEach stops them. */
  running: TestConsumer[];
}

export function consumerSuite(label: string): ConsumerSuite {
  const suite = { s: openStack(), running: [] as TestConsumer[] } as ConsumerSuite;
  beforeAll(async () => {
    suite.db = await createTestDatabase(suite.s, label);
    suite.broker = await openAdminBroker(suite.s);
  });
  beforeEach(() => purgeAll(suite.broker, WORK_QUEUE));
  afterEach(async () => {
    for (const c of suite.running.splice(0)) await c.stop();
  });
  afterAll(async () => {
    await purgeAll(suite.broker, WORK_QUEUE);
    await suite.broker.close();
    await suite.db.drop();
  });
  return suite;
}

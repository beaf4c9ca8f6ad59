import type { RunTransaction } from "@orderflow/db";
import { silentLogger } from "@orderflow/logging";
// The outbox inside a real Prisma 7 interactive transaction (generated client + adapter-pg), with the
// outbox models included in the schema as a service includes them. Needs `pnpm -r generate` first.

import { randomUUID } from "node:crypto";
import fs from "node:fs";
import type { SqlTx } from "@orderflow/db";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRelay, enqueue, markDone, withOutbox } from "../src/index.ts";
import {
  buildEvent,
  countDeliveries,
  freshDatabase,
  orderPublisher,
  ROUTED_QUEUE,
  type TestDb,
} from "./helpers.ts";

const CLIENT = new URL("./generated/prisma/client.ts", import.meta.url);

// The generated client's surface this test uses; typed here so `pnpm typecheck` does not depend on
// generation having run.
interface TxClient extends SqlTx {
  order: { create(args: { data: { id: string; total: number } }): Promise<unknown> };
}
interface Prisma {
  $transaction<R>(fn: (tx: TxClient) => Promise<R>): Promise<R>;
  $disconnect(): Promise<void>;
  order: { count(args: { where: { id: string } }): Promise<number> };
  outbox: {
    findUnique(args: { where: { messageId: string } }): Promise<Record<string, unknown> | null>;
    count(args: { where: { aggregateId: string } }): Promise<number>;
  };
}

let db: TestDb;
let prisma: Prisma;
beforeAll(async () => {
  if (!fs.existsSync(CLIENT))
    throw new Error("Prisma test client not generated: run `pnpm --filter @orderflow/outbox generate`");
  db = await freshDatabase();
  await db.pool.query("CREATE TABLE orders (id uuid PRIMARY KEY, total int NOT NULL)");
  const { PrismaClient } = (await import(CLIENT.href)) as {
    PrismaClient: new (o: { adapter: PrismaPg }) => Prisma;
  };
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: db.url }) });
});
afterAll(async () => {
  await prisma?.$disconnect();
  await db?.drop();
});

const inPrisma: RunTransaction<TxClient> = (fn) => prisma.$transaction(fn);

describe("the outbox in a Prisma interactive transaction", () => {
  it("enqueue inside prisma.$transaction commits with the order, reads back through the Prisma model, and is published after commit", async () => {
    const counter = await countDeliveries(ROUTED_QUEUE);
    const publisher = orderPublisher();
    await publisher.waitUntilConnected(10_000);
    const relay = createRelay({
      log: silentLogger,
      pool: db.pool,
      publisher,
      config: { pollIntervalMs: 60_000 },
    });
    relay.start();
    try {
      const event = buildEvent();
      const id = await withOutbox(inPrisma, relay.afterCommit, async (tx, add) => {
        await tx.order.create({ data: { id: event.aggregateId, total: 1999 } });
        return add(event);
      });
      await eventually("the event at the broker", () => counter.published.has(id));
      const row = await prisma.outbox.findUnique({ where: { messageId: id } });
      expect(row).toMatchObject({
        eventType: "order.created",
        aggregateId: event.aggregateId,
        payload: event.payload,
        headers: { correlationId: event.correlationId, traceparent: event.traceparent },
      });
      await eventually(
        "marked sent",
        async () => (await prisma.outbox.findUnique({ where: { messageId: id } }))?.status === 1,
      );
    } finally {
      await relay.stop();
      await publisher.close();
      await counter.close();
    }
  });

  it("a Prisma transaction that throws leaves neither the order nor the outbox row", async () => {
    const event = buildEvent();
    const handed: string[][] = [];
    await expect(
      withOutbox(
        inPrisma,
        (ids) => handed.push(ids),
        async (tx, add) => {
          await tx.order.create({ data: { id: event.aggregateId, total: 5 } });
          await add(event);
          throw new Error("out of stock");
        },
      ),
    ).rejects.toThrow("out of stock");
    expect(await prisma.order.count({ where: { id: event.aggregateId } })).toBe(0);
    expect(await prisma.outbox.count({ where: { aggregateId: event.aggregateId } })).toBe(0);
    expect(handed).toEqual([]);
  });

  it("markDone works through a Prisma tx", async () => {
    const id = await prisma.$transaction((tx) => enqueue(tx, buildEvent({ aggregateId: randomUUID() })));
    expect(await prisma.$transaction((tx) => markDone(tx, id))).toBe(1);
    expect((await prisma.outbox.findUnique({ where: { messageId: id } }))?.status).toBe(2);
  });
});

// `pnpm stack redrive <queue>` moves parked messages back to their work queue with the stack's admin
// user, through @orderflow/messaging's redrive (messaging itself never reads the stack).
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterAll, beforeAll, expect, test } from "vitest";
import { amqpUrls, repoRoot, type Stack } from "../src/index.ts";
import { type Conn, connectAny, getOne, publishConfirmed } from "./broker-helpers.ts";

const QUEUE = `stack-redrive-test-${process.pid}`;
const PARKING = `${QUEUE}.parking`;
let s: Stack;
let conn: Conn;

beforeAll(async () => {
  s = await requireHealthyStack();
  conn = await connectAny(amqpUrls(s));
  const ch = await conn.createChannel();
  for (const q of [QUEUE, PARKING])
    await ch.assertQueue(q, { durable: true, arguments: { "x-queue-type": "quorum" } });
  await ch.close();
});

afterAll(async () => {
  const ch = await conn.createChannel();
  for (const q of [QUEUE, PARKING]) await ch.deleteQueue(q);
  await conn.close();
});

test("moves the parked messages with the given ids back to the work queue and keeps the others", async () => {
  for (const id of ["m-1", "m-2"])
    await publishConfirmed(conn, "", PARKING, JSON.stringify({ id }), {
      messageId: id,
      type: "order.created",
    });
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", path.join(repoRoot, "infra/src/cli.ts"), "redrive", QUEUE, "--id", "m-2"],
    { cwd: repoRoot, timeout: 60_000 },
  );
  expect(JSON.parse(stdout)).toEqual({ queue: QUEUE, moved: 1, kept: 1, messageIds: ["m-2"] });
  const got = await getOne(amqpUrls(s), QUEUE, 10_000);
  expect(got.msg.properties.messageId).toBe("m-2");
  got.ch.ack(got.msg);
  await got.conn.close();
  const ch = await conn.createChannel();
  expect((await ch.checkQueue(PARKING)).messageCount).toBe(1);
  await ch.close();
});

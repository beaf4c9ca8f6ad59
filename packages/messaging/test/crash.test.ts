import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { amqpUrls, openStack, waitFor } from "@orderflow/infra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AdminBroker, openAdminBroker, purgeAll } from "./helpers/broker.ts";
import { startTestConsumer, type TestConsumer, WORK_QUEUE } from "./helpers/consumer.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/db.ts";
import { buildOrderCreated } from "./helpers/factories.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../../..");
const s = openStack();
let db: TestDatabase;
let broker: AdminBroker;
let c: TestConsumer | undefined;

beforeAll(async () => {
  db = await createTestDatabase(s, "crash");
  broker = await openAdminBroker(s);
  await purgeAll(broker, WORK_QUEUE);
});
afterAll(async () => {
  await c?.stop();
  await purgeAll(broker, WORK_QUEUE);
  await broker.close();
  await db.drop();
});

describe("consumer crash", () => {
  it("a consumer SIGKILLed mid-handler leaves no effect; the redelivered message is applied once", async () => {
    const name = "crash";
    // node --import tsx (not the tsx CLI, which would put a wrapper process between us and the consumer).
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(here, "fixtures/consumer-process.ts"),
        JSON.stringify({ urls: amqpUrls(s, "inventory"), dbUrl: db.url, consumerName: name }),
      ],
      { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString();
    });
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on("exit", (_code, sig) => r(sig)));
    try {
      await waitFor("child consumer ready", () => out.includes("READY"), { timeoutMs: 30_000 });
      const order = buildOrderCreated();
      const id = await broker.publishEvent("order.created", order);
      await waitFor("handler blocked", () => out.includes(`BLOCKED ${id}`), { timeoutMs: 15_000 });
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");
      // The open transaction died with the process: no effect, no inbox row.
      expect(await db.effects()).toHaveLength(0);

      c = await startTestConsumer(s, db, { consumerName: name });
      const consumer = c;
      await waitFor("redelivered and applied", () => consumer.outcomes.some((o) => o.kind === "done"), {
        timeoutMs: 30_000,
      });
      const effects = await db.effects();
      expect(effects.map((e) => e.message_id)).toEqual([id]);
      // A duplicate published afterwards (the same message again, as a relay re-sends it) changes nothing.
      await broker.publishEvent("order.created", order, { messageId: id });
      await waitFor("duplicate seen", () => consumer.outcomes.some((o) => o.kind === "duplicate"));
      expect(await db.effects()).toHaveLength(1);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});

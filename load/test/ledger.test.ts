import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startTestServer, type TestServer } from "@orderflow/testkit/test-server.ts";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createJsonlWriter, type LedgerEntry, readJsonl, recordSuccesses } from "../src/ledger.ts";
import { runLoad } from "../src/runner.ts";

let server: TestServer | undefined;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ledger-test-"));
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("the ledger", () => {
  it("records exactly the 2xx responses, with their idempotency keys and parsed bodies", async () => {
    // The server plays the order API: 201 with an order id, but every 5th is a 503 and every 7th a 409.
    const answered = new Map<string, number>();
    server = await startTestServer((req, n) => {
      const key = String(req.headers["idempotency-key"]);
      const status = n % 5 === 4 ? 503 : n % 7 === 6 ? 409 : 201;
      answered.set(key, status);
      return { status, body: status === 201 ? { orderId: `order-${key}` } : { error: "nope" } };
    });
    const file = path.join(tmp, "ledger.jsonl");
    const writer = createJsonlWriter<LedgerEntry>(file);
    const result = await runLoad(
      "orders",
      {
        target: server.url,
        scenario: { executor: "constant-arrival-rate", rate: 200, duration: "1s", preAllocatedVUs: 50 },
      },
      () => ({
        method: "POST",
        path: "/orders",
        headers: { "content-type": "application/json", "Idempotency-Key": randomUUID() },
        body: JSON.stringify({ sku: "A", qty: 1 }),
      }),
      { onSuccess: recordSuccesses(writer.write) },
    );
    await writer.close();

    const ledger = readJsonl<LedgerEntry>(file);
    const accepted = [...answered].filter(([, status]) => status === 201).map(([key]) => key);
    expect(answered.size).toBe(result.summary.iterations.started);
    expect(ledger).toHaveLength(result.summary.status["2xx"]);
    expect(new Set(ledger.map((e) => e.key))).toEqual(new Set(accepted));
    for (const entry of ledger) {
      expect(entry.status).toBe(201);
      expect(entry.body).toEqual({ orderId: `order-${entry.key}` });
      expect(entry.latencyUs).toBeGreaterThan(0);
    }
    expect(accepted.length).toBeLessThan(answered.size);
  });

  it("fails the run when the ledger cannot be written, rather than keeping a ledger with holes", async () => {
    server = await startTestServer();
    const run = runLoad(
      "broken-ledger",
      {
        target: server.url,
        scenario: { executor: "constant-arrival-rate", rate: 20, duration: "300ms", preAllocatedVUs: 5 },
      },
      () => ({ method: "GET", path: "/" }),
      {
        onSuccess: () => {
          throw new Error("disk full");
        },
      },
    );
    await expect(run).rejects.toThrow(/disk full/);
  });
});

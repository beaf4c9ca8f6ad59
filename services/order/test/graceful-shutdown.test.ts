// SIGTERM while orders flow: the service stops HTTP intake, drains its consumer and the relay's fast path,
// closes the broker and the database, and exits 0; nothing it acknowledged is lost.
import fs from "node:fs";
import path from "node:path";
import { startApplication, stopApplication } from "@orderflow/infra";
import { afterAll, beforeAll, expect, test } from "vitest";
import { eventually, finalOrders, openSaga, placeOrder, runId, type Saga, setStock } from "./helpers.ts";

let saga: Saga;
beforeAll(async () => {
  saga = await openSaga();
});
afterAll(async () => {
  if (!saga) return;
  await startApplication("order", saga.stack).catch(() => {});
  await saga.close();
});

test("SIGTERM of the order service under load exits cleanly and loses no acknowledged order", async () => {
  const run = runId();
  const sku = `term-${run}`;
  await setStock(saga, sku, 1_000);
  const logFile = path.join(saga.stack.layout.stackDir, "apps", "order.log");
  const logBefore = fs.readFileSync(logFile, "utf8").length;

  const acknowledged: string[] = [];
  const sends: Promise<void>[] = [];
  let stopping: Promise<unknown> | undefined;
  for (let i = 0; i < 60; i++) {
    if (i === 20) stopping = stopApplication("order", saga.stack); // SIGTERM, held down until started
    sends.push(
      placeOrder(saga, `term-${run}`, [{ sku, quantity: 1, unitPrice: 100 }]).then(
        (r) => {
          if (r.status === 201) acknowledged.push(r.body.id);
        },
        () => {}, // refused while the service is down: never acknowledged, so nothing was promised
      ),
    );
    await new Promise((r) => setTimeout(r, 25));
  }
  await Promise.all(sends);
  await stopping;
  const log = fs.readFileSync(logFile, "utf8").slice(logBefore);
  expect(log).toContain('"event":"shutdown.done"');
  await startApplication("order", saga.stack);

  expect(acknowledged.length).toBeGreaterThan(0);
  const final = await eventually(
    "every acknowledged order final",
    async () => {
      const rows = await finalOrders(saga, acknowledged);
      return rows.length === acknowledged.length ? rows : undefined;
    },
    { timeoutMs: 90_000 },
  );
  expect(final.every((o) => o.status === "CONFIRMED")).toBe(true);
});

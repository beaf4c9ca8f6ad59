// The demo (README's first command, after `pnpm stack up`): a burst of orders while the leader of the
// inventory queue is killed with SIGKILL and the inventory service is killed mid-flight; then every
// order's final state, the stock, the points, and the audit's verdict across the three databases.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parseCli } from "@orderflow/config";
import {
  type ChaosEvent,
  killApplication,
  killBrokerNode,
  openStack,
  repoRoot,
  startBrokerNode,
} from "@orderflow/infra";
import { absorbedCounters, audit } from "@orderflow/lab/audit/audit.ts";
import type { LedgerOrder, RunLedger } from "@orderflow/lab/audit/ledger.ts";
import { DEFAULT_RATE } from "@orderflow/load/scenario-definitions.ts";

// The burst follows the fault lab's default rate (never below the demo's original 30/s) and lasts
// BURST_S seconds, so both faults land in a busy system; capped so the demo stays a few minutes long
// whatever the default becomes (the final states are read one order at a time).
const BURST_S = 8;
const MAX_ORDERS = 1_200;
const RATE_PER_S = Math.max(30, DEFAULT_RATE);
const ORDERS = Math.min(MAX_ORDERS, Math.round(RATE_PER_S * BURST_S));
// The stock per SKU grows with the burst, so the mix of confirmed and (out of stock) cancelled orders
// stays that of the original 240 orders.
const STOCK_SCALE = ORDERS / 240;

parseCli(
  {
    usage: `usage: pnpm demo   (no arguments; against a running stack: pnpm stack up first)
  ${ORDERS} orders at ${RATE_PER_S}/s over 10 SKUs while the leader of inventory.order-events and then the
  inventory service are killed with SIGKILL; then every order's final state and the audit's verdict`,
  },
  process.argv.slice(2),
);
const s = openStack(undefined, false);
const url = (svc: "order" | "inventory" | "points") => `http://127.0.0.1:${s.layout.servicePorts[svc]}`;
const say = (m: string) => process.stdout.write(`${m}\n`);
const run = randomUUID().slice(0, 6);
const prefix = `demo-${run}-`;
const elapsed = (t0: number) => `t=${((Date.now() - t0) / 1000).toFixed(1)}s`;

async function getJson<T>(u: string): Promise<T> {
  const res = await fetch(u, { signal: AbortSignal.timeout(10_000) });
  return (await res.json()) as T;
}

async function placeOrder(order: Omit<LedgerOrder, "orderId" | "acceptedAt">) {
  const res = await fetch(`${url("order")}/orders`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": order.idempotencyKey },
    body: JSON.stringify({ customerId: order.customerId, lines: order.lines }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, body: (await res.json()) as { id?: string } };
}

async function seedStock(skus: string[]): Promise<Record<string, number>> {
  const initial: Record<string, number> = {};
  for (const [i, sku] of skus.entries()) {
    initial[sku] = Math.round((15 + i * 3) * STOCK_SCALE);
    const r = await fetch(`${url("inventory")}/stock/${sku}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ available: initial[sku] }),
    });
    if (!r.ok) throw new Error(`could not set the stock of ${sku}: HTTP ${r.status}`);
  }
  return initial;
}

async function main(): Promise<number> {
  const skus = Array.from({ length: 10 }, (_, i) => `${prefix}sku-${i}`);
  const initialStock = await seedStock(skus);
  const serviceUrls = [url("order"), url("inventory"), url("points")];
  const before = await absorbedCounters(serviceUrls);
  say(
    `demo ${run}: ${ORDERS} orders at ${RATE_PER_S}/s over ${skus.length} SKUs (stock ${Object.values(initialStock).join(", ")})`,
  );

  const ledger: RunLedger = { prefix, initialStock, orders: [] };
  const events: ChaosEvent[] = [];
  const failures: string[] = [];
  // Requests whose answer was lost or refused: the order may or may not exist. A client retries them
  // with the same Idempotency-Key, which returns the order if it was created, or creates it once.
  const unanswered: Omit<LedgerOrder, "orderId" | "acceptedAt">[] = [];
  let killedNode: string | undefined;
  const inFlight: Promise<void>[] = [];
  const t0 = Date.now();
  for (let i = 0; i < ORDERS; i++) {
    // Open model: each order starts on schedule whether or not earlier ones have returned.
    const due = t0 + (i * 1000) / RATE_PER_S;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    if (i === Math.floor(ORDERS / 4)) {
      const e = await killBrokerNode("leader:inventory.order-events", s);
      killedNode = String(e.detail?.node);
      events.push(e);
      say(`  ${elapsed(t0)}  kill -9 broker node ${killedNode} (leader of inventory.order-events)`);
    }
    if (i === Math.floor(ORDERS / 2)) {
      events.push(await killApplication("inventory", s));
      say(`  ${elapsed(t0)}  kill -9 the inventory service (its supervisor restarts it)`);
    }
    const order = {
      idempotencyKey: randomUUID(),
      customerId: `${prefix}cust-${i % 12}`,
      lines: [
        { sku: skus[i % skus.length] as string, quantity: 1 + (i % 3), unitPrice: 250 + ((i * 37) % 4_000) },
        ...(i % 4 === 0
          ? [{ sku: skus[(i + 3) % skus.length] as string, quantity: 2, unitPrice: 1_999 }]
          : []),
      ],
    };
    inFlight.push(
      placeOrder(order).then(
        (r) => {
          if ((r.status === 200 || r.status === 201) && r.body.id) {
            ledger.orders.push({ ...order, orderId: r.body.id, acceptedAt: Date.now() });
          } else {
            failures.push(`HTTP ${r.status}`);
            if (r.status >= 500) unanswered.push(order);
          }
        },
        (e: unknown) => {
          failures.push((e as Error).message);
          unanswered.push(order);
        },
      ),
    );
  }
  await Promise.all(inFlight);
  say(
    `  ${elapsed(t0)}  ${ledger.orders.length} orders accepted, ${failures.length} refused or failed (the ledger holds only accepted ones)`,
  );
  if (killedNode) {
    events.push(await startBrokerNode(killedNode, s));
    say(`  ${elapsed(t0)}  broker node ${killedNode} restarted and rejoined`);
  }
  let recovered = 0;
  for (const order of unanswered) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const r = await placeOrder(order).catch(() => undefined);
      if (r && (r.status === 200 || r.status === 201) && r.body.id) {
        ledger.orders.push({ ...order, orderId: r.body.id, acceptedAt: Date.now() });
        recovered++;
        break;
      }
    }
  }
  if (unanswered.length > 0) {
    say(
      `  ${elapsed(t0)}  retried ${unanswered.length} unanswered requests with their Idempotency-Key: ${recovered} answered`,
    );
  }

  say("waiting for the system to settle, then auditing every order across the three databases...");
  const result = await audit(s, ledger, { settleTimeoutMs: 180_000, serviceUrls, before });
  await printFinalState(ledger, skus, initialStock);

  const report = { run, events, failures: failures.length, ...result };
  const out = path.join(repoRoot, "reports/demo");
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, `verdict-${run}.json`), JSON.stringify(report, null, 2));
  say(
    `\nverdict: ${result.ok ? "OK" : "VIOLATIONS FOUND"}: ${result.orders.accepted} accepted, ${result.orders.confirmed} confirmed, ` +
      `${result.orders.cancelled} cancelled; ${result.violationCount} violations; settled after ${result.settledAfterMs ?? "n/a"} ms`,
  );
  say(`absorbed on the way: ${JSON.stringify(result.absorbed)}`);
  if (!result.ok) say(JSON.stringify(result.violations, null, 2));
  say(`full verdict: reports/demo/verdict-${run}.json`);
  return result.ok ? 0 : 1;
}

async function printFinalState(
  ledger: RunLedger,
  skus: string[],
  initialStock: Record<string, number>,
): Promise<void> {
  say("\nfinal states (first 12):");
  const byStatus = new Map<string, number>();
  for (const [i, o] of ledger.orders.entries()) {
    const r = await getJson<{ status: string; total: number; pointsGranted: number | null }>(
      `${url("order")}/orders/${o.orderId}`,
    );
    byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
    if (i < 12)
      say(
        `  ${o.orderId}  ${r.status.padEnd(9)} total ${String(r.total).padStart(6)}  points ${r.pointsGranted ?? "-"}`,
      );
  }
  say(`  all ${ledger.orders.length}: ${[...byStatus].map(([k, n]) => `${n} ${k}`).join(", ")}`);
  say("\nstock (initial -> available + reserved):");
  for (const sku of skus) {
    const st = await getJson<{ available: number; reserved: number }>(`${url("inventory")}/stock/${sku}`);
    say(
      `  ${sku}  ${String(initialStock[sku]).padStart(3)} -> ${String(st.available).padStart(3)} + ${String(st.reserved).padStart(3)}`,
    );
  }
  say("\npoints (customer: balance):");
  const customers = [...new Set(ledger.orders.map((o) => o.customerId))].sort();
  const balances = await Promise.all(
    customers.map(
      async (c) =>
        `${c.slice(prefix.length)} ${(await getJson<{ balance: number }>(`${url("points")}/points/${c}`)).balance}`,
    ),
  );
  say(`  ${balances.join(", ")}`);
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`demo failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);

// What every scenario offers the order API: orders of a run-unique prefix (so the audit sees only this
// run), each with a unique Idempotency-Key, over a few SKUs seeded with plenty of stock, and the ledger
// built from the 2xx answers.
import type { Stack } from "@orderflow/infra";
import type { RequestSpec } from "@orderflow/load/http.ts";
import type { IterationContext, SuccessInfo } from "@orderflow/load/runner.ts";
import type { LedgerOrder, RunLedger } from "../audit/ledger.ts";

export interface Workload {
  prefix: string;
  initialStock: Record<string, number>;
  request: (ctx: IterationContext) => RequestSpec;
  onSuccess: (info: SuccessInfo) => void;
  ledger: () => RunLedger;
  /**
   * Asks again, with the same Idempotency-Key and body, about every request that got no 2xx (a
   * timeout, a 5xx, a reset): the server may have committed an order the client never heard about.
   * What a careful client does; the answers go into the ledger. Returns how many were accepted.
   */
  resolveUnanswered: (origin: string) => Promise<{ asked: number; accepted: number; stillUnknown: number }>;
}

interface OrderBody {
  customerId: string;
  lines: { sku: string; quantity: number; unitPrice: number }[];
}

const SKUS = 8;
const CUSTOMERS = 40;
// Enough that no order is rejected for stock: every confirmed order then must hold a reservation and a
// grant, which makes a missing or doubled effect stand out.
const STOCK_PER_SKU = 1_000_000;

/** Deterministic per iteration, so the ledger can be rebuilt from the iteration number alone. */
export function orderFor(prefix: string, iteration: number): OrderBody {
  const sku = (i: number) => `${prefix}sku-${i % SKUS}`;
  const lines = [
    { sku: sku(iteration), quantity: 1 + (iteration % 3), unitPrice: 250 + (iteration % 7) * 100 },
  ];
  if (iteration % 2 === 0) lines.push({ sku: sku(iteration + 3), quantity: 1, unitPrice: 1_999 });
  return { customerId: `${prefix}c-${iteration % CUSTOMERS}`, lines };
}

export function createWorkload(prefix: string): Workload {
  const initialStock = Object.fromEntries(
    Array.from({ length: SKUS }, (_, i) => [`${prefix}sku-${i}`, STOCK_PER_SKU]),
  );
  const orders: LedgerOrder[] = [];
  const started = new Set<number>();
  const answered = new Set<number>();
  const accept = (iteration: number, text: string) => {
    const body = JSON.parse(text) as { id?: string };
    if (typeof body.id !== "string" || answered.has(iteration)) return;
    answered.add(iteration);
    const o = orderFor(prefix, iteration);
    orders.push({
      orderId: body.id,
      idempotencyKey: `${prefix}key-${iteration}`,
      customerId: o.customerId,
      lines: o.lines,
      acceptedAt: Date.now(),
    });
  };
  const requestOf = (iteration: number) => ({
    method: "POST",
    path: "/orders",
    headers: { "content-type": "application/json", "idempotency-key": `${prefix}key-${iteration}` },
    body: JSON.stringify(orderFor(prefix, iteration)),
  });
  return {
    prefix,
    initialStock,
    request: ({ iteration }) => {
      started.add(iteration);
      return requestOf(iteration);
    },
    onSuccess: (info) => accept(info.iteration, info.body),
    ledger: () => ({ prefix, initialStock, orders: [...orders] }),
    resolveUnanswered: async (origin) => {
      const todo = [...started].filter((i) => !answered.has(i));
      let accepted = 0;
      let stillUnknown = 0;
      const worker = async () => {
        for (let i = todo.shift(); i !== undefined; i = todo.shift()) {
          const r = requestOf(i);
          let ok = false;
          for (let attempt = 0; attempt < 3 && !ok; attempt++) {
            try {
              const res = await fetch(`${origin}${r.path}`, {
                method: r.method,
                headers: r.headers,
                body: r.body,
                signal: AbortSignal.timeout(15_000),
              });
              const text = await res.text();
              if (res.ok) {
                accept(i, text);
                ok = true;
              }
            } catch {}
          }
          if (ok) accepted++;
          else stillUnknown++;
        }
      };
      const asked = todo.length;
      await Promise.all(Array.from({ length: 4 }, worker));
      return { asked, accepted, stillUnknown };
    },
  };
}

/** Sets each SKU's stock through the inventory API (PUT /stock/:sku). */
export async function seedStock(s: Stack, stock: Record<string, number>): Promise<void> {
  const base = `http://127.0.0.1:${s.layout.servicePorts.inventory}`;
  for (const [sku, available] of Object.entries(stock)) {
    const res = await fetch(`${base}/stock/${encodeURIComponent(sku)}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ available }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`seeding ${sku} failed: ${res.status} ${await res.text()}`);
  }
}

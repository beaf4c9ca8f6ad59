// @ts-check
// The orders the fault lab's workload offers (lab/src/run/workload.ts), so an audit reads a
// k6 run like a lab run: run-prefixed customers and SKUs, deterministic per iteration.

export const SKUS = 8;
const CUSTOMERS = 40;
// Enough that no order is rejected for stock: every confirmed order then must hold a reservation and a
// grant, which makes a missing or doubled effect stand out.
export const STOCK_PER_SKU = 1_000_000;

/** @param {string} prefix @param {number} i */
export const skuOf = (prefix, i) => `${prefix}sku-${i % SKUS}`;

/** @param {string} prefix @param {number} iteration */
export function orderFor(prefix, iteration) {
  const lines = [
    { sku: skuOf(prefix, iteration), quantity: 1 + (iteration % 3), unitPrice: 250 + (iteration % 7) * 100 },
  ];
  if (iteration % 2 === 0) lines.push({ sku: skuOf(prefix, iteration + 3), quantity: 1, unitPrice: 1_999 });
  return { customerId: `${prefix}c-${iteration % CUSTOMERS}`, lines };
}

/** Unique per request of a run: a retry of the same iteration would reuse it, a new one never does. */
export const idempotencyKey = (/** @type {string} */ prefix, /** @type {number} */ iteration) =>
  `${prefix}key-${iteration}`;

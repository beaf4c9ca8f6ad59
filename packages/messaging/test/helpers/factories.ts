import { randomUUID } from "node:crypto";
import type { EventPayload } from "@orderflow/contracts";

export const buildOrderCreated = (
  overrides: Partial<EventPayload<"order.created">> = {},
): EventPayload<"order.created"> => ({
  orderId: `o-${randomUUID().slice(0, 8)}`,
  customerId: "c-1",
  lines: [{ sku: "sku-1", quantity: 2, unitPrice: 1250 }],
  total: 2500,
  createdAt: new Date().toISOString(),
  ...overrides,
});

export const RETENTION = {
  retentionMs: 7 * 24 * 3600_000,
  relayMaxBackoffMs: 60_000,
  reconciliationPeriodMs: 3600_000,
};

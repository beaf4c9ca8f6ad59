// What the inventory service consumes and publishes, in one place.
//
// consumes (queue inventory.order-events)       step              publishes (outbox)
//   order.created                               reserve-stock     inventory.reserved | inventory.rejected
//   order.cancelled                             release-stock     inventory.released
// and every change of stock (both steps above, PUT /stock/:sku)     inventory.stock-changed (ordered by SKU)

import type { SqlTx } from "@orderflow/db";
import type { Subscriptions, WorkQueue } from "@orderflow/service-runtime";
import { releaseStock } from "./steps/release-stock.ts";
import { reserveStock } from "./steps/reserve-stock.ts";

export const QUEUE = "inventory.order-events";

export const SUBSCRIPTIONS: Subscriptions<SqlTx> = {
  "order.created": reserveStock,
  "order.cancelled": releaseStock,
};

export const PUBLISHES = [
  "inventory.reserved",
  "inventory.rejected",
  "inventory.released",
  "inventory.stock-changed",
] as const;

export const WORK_QUEUE: WorkQueue = { queue: QUEUE, subscriptions: SUBSCRIPTIONS, publishes: PUBLISHES };

// What the order service consumes and publishes, in one place.
//
// publishes (outbox, routing key = event type)     consumes (queue order.saga-replies)   step
//   order.created    -> inventory                    inventory.reserved                  confirm-order
//   order.cancelled  -> inventory, points            inventory.rejected                  cancel-rejected-order
//   order.confirmed  -> points (v1 only, below)      points.granted                      record-points
//                                                    inventory.released                  record-cancel-ack
//                                                    points.reversed                     record-cancel-ack
//                                                    inventory.stock-changed             record-stock-level
// order.created comes from POST /orders (orders/create-order.ts), order.cancelled also from
// POST /orders/:id/cancel (orders/cancel-order.ts).
// inventory.reserved goes to points as well, which grants on it beside confirm-order: an order
// is final, CONFIRMED with its points recorded, one hop sooner than when points waited for
// order.confirmed. This service writes order.confirmed only for a v1 inventory.reserved (queued before
// inventory carried what points needs), and reconciliation re-sends it when that order has no points.
// inventory.stock-changed is not part of the saga: it keeps this service's read model of stock (GET
// /stock-levels), an ordered stream per SKU.

import type { SqlTx } from "@orderflow/db";
import type { Subscriptions } from "@orderflow/service-runtime";
import type { FinalLatency } from "./final-latency.ts";
import { cancelRejectedOrder } from "./steps/cancel-rejected-order.ts";
import { confirmOrder } from "./steps/confirm-order.ts";
import { recordPointsReversed, recordStockReleased } from "./steps/record-cancel-ack.ts";
import { recordPoints } from "./steps/record-points.ts";
import { recordStockLevel } from "./steps/record-stock-level.ts";

export const QUEUE = "order.saga-replies";

/** The steps; the two that end an order's wait report it to `final` (order_final_seconds). */
export const orderSubscriptions = (final: FinalLatency): Subscriptions<SqlTx> => ({
  "inventory.reserved": confirmOrder(final),
  "inventory.rejected": cancelRejectedOrder(final),
  "points.granted": recordPoints,
  "inventory.released": recordStockReleased,
  "points.reversed": recordPointsReversed,
  "inventory.stock-changed": recordStockLevel,
});

export const PUBLISHES = ["order.created", "order.confirmed", "order.cancelled"] as const;

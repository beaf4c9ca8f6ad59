// What the order service consumes and publishes, in one place.
//
// publishes (outbox, routing key = event type)     consumes (queue order.saga-replies)   step
//   order.created    -> inventory                    inventory.reserved                  confirm-order
//   order.confirmed  -> points                       inventory.rejected                  cancel-rejected-order
//   order.cancelled  -> inventory, points            points.granted                      record-points
//                                                    inventory.released                  record-cancel-ack
//                                                    points.reversed                     record-cancel-ack
// order.created comes from POST /orders (orders/create-order.ts), order.cancelled also from
// POST /orders/:id/cancel (orders/cancel-order.ts).

import type { SqlTx } from "@orderflow/db";
import type { Subscriptions } from "@orderflow/service-runtime";
import type { FinalLatency } from "./final-latency.ts";
import { cancelRejectedOrder } from "./steps/cancel-rejected-order.ts";
import { confirmOrder } from "./steps/confirm-order.ts";
import { recordPointsReversed, recordStockReleased } from "./steps/record-cancel-ack.ts";
import { recordPoints } from "./steps/record-points.ts";

export const QUEUE = "order.saga-replies";

/** The steps; the two that end an order's wait report it to `final` (order_final_seconds). */
export const orderSubscriptions = (final: FinalLatency): Subscriptions<SqlTx> => ({
  "inventory.reserved": confirmOrder(final),
  "inventory.rejected": cancelRejectedOrder(final),
  "points.granted": recordPoints,
  "inventory.released": recordStockReleased,
  "points.reversed": recordPointsReversed,
});

export const PUBLISHES = ["order.created", "order.confirmed", "order.cancelled"] as const;

// What the points service consumes and publishes, in one place.
//
// consumes (queue points.order-events)          step              publishes (outbox)
//   inventory.reserved                          grant-points      points.granted
//   order.confirmed (v1 reservations only)      grant-points      points.granted
//   order.cancelled                             reverse-points    points.reversed
//
// Points grants on inventory.reserved, beside the order service's confirm, not after it: an order is
// final (confirmed, its points recorded) one hop sooner.
//
// The rule (1 point per whole currency unit of the total) lives in @orderflow/contracts (pointsFor):
// the order service's invariant check and the fault lab's audit apply it too.

import type { SqlTx } from "@orderflow/db";
import type { Subscriptions, WorkQueue } from "@orderflow/service-runtime";
import { grantOnConfirmation, grantOnReservation } from "./steps/grant-points.ts";
import { reversePoints } from "./steps/reverse-points.ts";

export const QUEUE = "points.order-events";

export const SUBSCRIPTIONS: Subscriptions<SqlTx> = {
  "inventory.reserved": grantOnReservation,
  "order.confirmed": grantOnConfirmation,
  "order.cancelled": reversePoints,
};

export const PUBLISHES = ["points.granted", "points.reversed"] as const;

export const WORK_QUEUE: WorkQueue = { queue: QUEUE, subscriptions: SUBSCRIPTIONS, publishes: PUBLISHES };

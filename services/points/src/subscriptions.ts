// What the points service consumes and publishes, in one place.
//
// consumes (queue points.order-events)          step              publishes (outbox)
//   order.confirmed                             grant-points      points.granted
//   order.cancelled                             reverse-points    points.reversed
//
// The rule (1 point per whole currency unit of the total) lives in @orderflow/contracts (pointsFor):
// the order service's invariant check and the fault lab's audit apply it too.

import type { SqlTx } from "@orderflow/db";
import type { Subscriptions } from "@orderflow/service-runtime";
import { grantPoints } from "./steps/grant-points.ts";
import { reversePoints } from "./steps/reverse-points.ts";

export const QUEUE = "points.order-events";

export const SUBSCRIPTIONS: Subscriptions<SqlTx> = {
  "order.confirmed": grantPoints,
  "order.cancelled": reversePoints,
};

export const PUBLISHES = ["points.granted", "points.reversed"] as const;

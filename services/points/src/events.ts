// Everything the points service publishes and consumes, in one place.
//
// consumes (queue points.order-events)          publishes (outbox)
//   order.confirmed -> grant points once          points.granted
//   order.cancelled -> reverse the grant once     points.reversed (also when nothing was granted: it is
//                                                 the acknowledgement the order service waits for)
//
// The rule: 1 point per whole currency unit of the order total (total in cents / 100, rounded down).
// It lives in @orderflow/contracts (pointsFor): the order service's invariant check and the audit apply it too.
export const QUEUE = "points.order-events";
export const CONSUMES = ["order.confirmed", "order.cancelled"] as const;
export const PUBLISHES = ["points.granted", "points.reversed"] as const;

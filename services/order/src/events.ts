// Everything the order service publishes and consumes, in one place.
//
// publishes (outbox, routing key = event type)      consumes (queue order.saga-replies)
//   order.created    -> inventory                     inventory.reserved -> CONFIRMED, order.confirmed
//   order.confirmed  -> points                        inventory.rejected -> CANCELLED, order.cancelled
//   order.cancelled  -> inventory, points             points.granted     -> records the points
//                                                     inventory.released -> cancellation acknowledged
//                                                     points.reversed    -> cancellation acknowledged
import { REPLIES } from "@orderflow/contracts";

export const QUEUE = "order.saga-replies";
export const PUBLISHES = ["order.created", "order.confirmed", "order.cancelled"] as const;
export const CONSUMES = [
  "inventory.reserved",
  "inventory.rejected",
  "points.granted",
  "inventory.released",
  "points.reversed",
] as const;
/** The replies an order.cancelled waits for before its outbox row is done. */
export const CANCEL_ACKS = REPLIES["order.cancelled"];

// Everything the inventory service publishes and consumes, in one place.
//
// consumes (queue inventory.order-events)     publishes (outbox)
//   order.created   -> reserve all lines or none  inventory.reserved | inventory.rejected (with the reason)
//   order.cancelled -> release what was reserved  inventory.released (also when nothing was reserved: it
//                                                 is the acknowledgement the order service waits for)
export const QUEUE = "inventory.order-events";
export const CONSUMES = ["order.created", "order.cancelled"] as const;
export const PUBLISHES = ["inventory.reserved", "inventory.rejected", "inventory.released"] as const;

// Business rules more than one service (and the audit) must agree on.
import type { EventPayload } from "./registry.ts";

/** Points for a confirmed order: 1 point per whole currency unit of its total (cents / 100, rounded down). */
export const pointsFor = (totalCents: number): number => Math.floor(totalCents / 100);

/**
 * What points can grant on in a reservation: a v2 one carries the customer and the total; a v1 one
 * (written before, queued at an upgrade) carries neither, and the order service asks points for it with
 * order.confirmed instead.
 */
export const grantableReservation = (p: EventPayload<"inventory.reserved">) =>
  "customerId" in p ? p : undefined;

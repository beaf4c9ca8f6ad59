// What every step of the order service does first (lock the order) and last (record what happened).
import { type EventType, isUuid } from "@orderflow/contracts";
import type { InboundEvent } from "@orderflow/messaging";
import type { Tx } from "../db.ts";

/**
 * The order's status, its row locked for the rest of the transaction; undefined when no such order.
 * Every state change is guarded by it: a late or replayed reply finds the order moved on and does nothing.
 */
export async function lockOrder(tx: Tx, orderId: string): Promise<string | undefined> {
  // Order ids are UUIDs: a reply naming anything else (a forged event's) is about no order of ours.
  if (!isUuid(orderId)) return undefined;
  const rows = await tx.$queryRawUnsafe<{ status: string }[]>(
    `SELECT status FROM orders WHERE id = $1::uuid FOR UPDATE`,
    orderId,
  );
  return rows[0]?.status;
}

/** One line of the order's history, naming the message that caused it. */
export function recordHistory(
  tx: Tx,
  orderId: string,
  event: EventType | `${EventType}.ignored`,
  cause: InboundEvent,
  extra: object = {},
) {
  return tx.orderHistory.create({
    data: { orderId, event, detail: { messageId: cause.envelope.messageId, ...extra } },
  });
}

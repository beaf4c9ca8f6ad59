// What every step of the order service does first (lock the order) and last (record what happened).
import { type EventType, isUuid } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import type { InboundEvent } from "@orderflow/messaging";
import { Prisma } from "../../generated/prisma/client.ts";

type HistoryEvent = EventType | `${EventType}.ignored`;

/**
 * The order's status, its row locked for the rest of the transaction; undefined when no such order.
 * Every state change is guarded by it: a late or replayed reply finds the order moved on and does nothing.
 * The hot paths guard inside their UPDATE instead (`WHERE status = 'PENDING'`, on the locked row) and
 * come here only when that update found nothing to change.
 */
export async function lockOrder(tx: SqlTx, orderId: string): Promise<string | undefined> {
  // Order ids are UUIDs: a reply naming anything else (a forged event's) is about no order of ours.
  if (!isUuid(orderId)) return undefined;
  const rows = await tx.$queryRawUnsafe<{ status: string }[]>(
    `SELECT status FROM orders WHERE id = $1::uuid FOR UPDATE`,
    orderId,
  );
  return rows[0]?.status;
}

/** What a history line records: the message that caused it, and what the step adds. */
const detailOf = (cause: InboundEvent, extra: object = {}) => ({
  messageId: cause.envelope.messageId,
  ...extra,
});

/** One line of the order's history, naming the message that caused it. */
export function recordHistory(
  tx: SqlTx,
  orderId: string,
  event: HistoryEvent,
  cause: InboundEvent,
  extra: object = {},
) {
  return tx.$executeRaw`
    INSERT INTO order_history (order_id, event, detail)
    VALUES (${orderId}::uuid, ${event}, ${JSON.stringify(detailOf(cause, extra))}::jsonb)`;
}

/**
 * The history lines a step writes in the same statement as its update: an INSERT for a query whose CTE
 * `o` returned the order's `id` (none when the update changed nothing). The lines keep the order given,
 * ids included, which is the order GET /orders/:id lists them in.
 */
export function historyOf(cause: InboundEvent, lines: [HistoryEvent, object?][]): Prisma.Sql {
  const events = lines.map(([event]) => event);
  const details = lines.map(([, extra]) => JSON.stringify(detailOf(cause, extra)));
  return Prisma.sql`
    INSERT INTO order_history (order_id, event, detail)
    SELECT o.id, h.event, h.detail
      FROM o, unnest(${events}::text[], ${details}::jsonb[]) WITH ORDINALITY AS h(event, detail, n)
     ORDER BY h.n`;
}

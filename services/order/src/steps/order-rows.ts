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

/** One order's history lines, written by the statement that changed it, each naming its cause. */
export interface HistoryEntry {
  orderId: string;
  cause: InboundEvent;
  lines: [HistoryEvent, object?][];
}

/**
 * The history lines steps write in the same statement as their update: an INSERT for a query whose CTE
 * `o` returned the `id` of each order it changed (an order it did not change gets none). Each order's
 * lines keep the order given, ids included, which is the order GET /orders/:id lists them in.
 */
export function historiesOf(entries: HistoryEntry[]): Prisma.Sql {
  const rows = entries.flatMap((e) =>
    e.lines.map(([event, extra]) => ({
      orderId: e.orderId,
      event,
      detail: JSON.stringify(detailOf(e.cause, extra)),
    })),
  );
  return Prisma.sql`
    INSERT INTO order_history (order_id, event, detail)
    SELECT o.id, h.event, h.detail
      FROM o JOIN unnest(${rows.map((r) => r.orderId)}::uuid[], ${rows.map((r) => r.event)}::text[],
                         ${rows.map((r) => r.detail)}::jsonb[]) WITH ORDINALITY AS h(order_id, event, detail, n)
             ON h.order_id = o.id
     ORDER BY h.n`;
}

/** One order's lines, as historiesOf writes them. */
export const historyOf = (orderId: string, cause: InboundEvent, lines: [HistoryEvent, object?][]) =>
  historiesOf([{ orderId, cause, lines }]);

// inventory.reserved (the saga's path) or order.confirmed (for a v1 reservation) -> credit the
// customer once, and answer points.granted. The grant row is the state guard: a grant already made, or a
// REVERSED tombstone left by a cancellation that came first, grants nothing again but still answers:
// with the points granted (the order service records the answer as the order's points, so it must repeat
// them), or 0 for the tombstone.
// Points grants on the reservation, beside the order's confirm, rather than on the order's confirmation
// after it: one hop fewer before an order is final. Only a reserved order reaches here (a
// rejected one is never reserved), and a customer can cancel only a confirmed one, which order.cancelled
// reverses whichever of the two arrives first.
// Set-based: a consumer batch's grants go in with one statement, whatever their number; a
// second statement runs only for the orders that had a grant row already.
import { grantableReservation, pointsFor } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import { batchStep, replyTo, type StepEvent } from "@orderflow/service-runtime";

type Fresh = { orderId: string; customerId: string; points: number; replyMessageId: string };

/**
 * The grants and the credits in one statement: the grant rows go in first with ON CONFLICT DO NOTHING
 * (waiting for a concurrent writer of the same order), and each account is credited with the sum of what
 * went in for it (one row per customer: an upsert cannot touch one row twice). Returns the orders this
 * call granted.
 */
async function grantOnce(tx: SqlTx, grants: Fresh[]): Promise<Set<string>> {
  const rows = await tx.$queryRawUnsafe<{ order_id: string }[]>(
    `WITH d AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::uuid[])
                  AS d(order_id, customer_id, points, reply_message_id)
     ), g AS (
       INSERT INTO grants (order_id, customer_id, points, status, reply_message_id)
       SELECT order_id, customer_id, points, 'GRANTED', reply_message_id FROM d
       ON CONFLICT (order_id) DO NOTHING
       RETURNING order_id, customer_id, points
     ), a AS (
       INSERT INTO accounts (customer_id, balance)
       SELECT customer_id, sum(points) FROM g GROUP BY customer_id ORDER BY customer_id
       ON CONFLICT (customer_id)
       DO UPDATE SET balance = accounts.balance + EXCLUDED.balance, updated_at = now()
     )
     SELECT order_id FROM g`,
    grants.map((g) => g.orderId),
    grants.map((g) => g.customerId),
    grants.map((g) => g.points),
    grants.map((g) => g.replyMessageId),
  );
  return new Set(rows.map((r) => r.order_id));
}

/**
 * The grants already there, locked by the update that records each new reply; what each answer repeats
 * (the points granted, 0 for a tombstone). A statement of its own: it must see rows that a concurrent
 * writer committed while grantOnce waited for it.
 */
async function repeatGrants(tx: SqlTx, grants: Fresh[]): Promise<Map<string, number>> {
  const rows = await tx.$queryRawUnsafe<{ order_id: string; status: string; points: number }[]>(
    `UPDATE grants SET reply_message_id = d.reply_message_id, updated_at = now()
       FROM unnest($1::text[], $2::uuid[]) AS d(order_id, reply_message_id)
      WHERE grants.order_id = d.order_id
     RETURNING grants.order_id, grants.status, grants.points`,
    grants.map((g) => g.orderId),
    grants.map((g) => g.replyMessageId),
  );
  const repeated = new Map(rows.map((r) => [r.order_id, r.status === "GRANTED" ? r.points : 0]));
  const missing = grants.find((g) => !repeated.has(g.orderId));
  if (missing) throw new Error(`grant ${missing.orderId} conflicted on insert but is not there`);
  return repeated;
}

type Asked = { orderId: string; customerId: string; total: number };

// Each call's orders are distinct (batchStep puts a second event for one order in a later round). An
// event `askOf` finds nothing in is acknowledged without a grant.
const grantOn = <T extends "inventory.reserved" | "order.confirmed">(
  askOf: (event: StepEvent<T>) => Asked | undefined,
) =>
  batchStep<T, SqlTx>(
    (event) => askOf(event)?.orderId ?? event.envelope.messageId,
    async (events, { tx, each }) => {
      const asked = events.flatMap((event, i) => {
        const a = askOf(event);
        if (!a) return [];
        const reply = replyTo(event);
        const fresh = {
          orderId: a.orderId,
          customerId: a.customerId,
          points: pointsFor(a.total),
          replyMessageId: reply.messageId,
        };
        return [{ i, reply, fresh }];
      });
      if (asked.length === 0) return events.map(() => undefined);
      const granted = await grantOnce(
        tx,
        asked.map((a) => a.fresh),
      );
      const others = asked.filter((a) => !granted.has(a.fresh.orderId)).map((a) => a.fresh);
      const repeated = others.length > 0 ? await repeatGrants(tx, others) : new Map<string, number>();
      for (const { i, reply, fresh } of asked) {
        const { orderId, customerId } = fresh;
        const points = granted.has(orderId) ? fresh.points : (repeated.get(orderId) ?? 0);
        await each(i).enqueue({
          eventType: "points.granted",
          aggregateType: "grant",
          aggregateId: orderId,
          payload: { orderId, customerId, points },
          ...reply,
        });
      }
      return events.map(() => undefined);
    },
  );

/**
 * The saga's path. A v1 reservation (written before inventory carried the customer and total, still
 * queued at an upgrade) grants nothing here: the order service asks for it with order.confirmed.
 */
export const grantOnReservation = grantOn<"inventory.reserved">((event) =>
  grantableReservation(event.payload),
);

/** The order service's ask for an order confirmed on a v1 reservation (and reconciliation's re-send of it). */
export const grantOnConfirmation = grantOn<"order.confirmed">((event) => event.payload);

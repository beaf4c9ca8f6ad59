// inventory.released and points.reversed both acknowledge order.cancelled; its outbox row is done only
// after both have, so a cancellation missing one of them stays "sent" for reconciliation to find.
import { isUuid } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import type { MarkDone, Step } from "@orderflow/service-runtime";
import type { CANCEL_ACKS } from "../cancel-acks.ts";
import { historyOf } from "./order-rows.ts";

type CancelAck = (typeof CANCEL_ACKS)[number];
type AckEvent = Parameters<Step<CancelAck, SqlTx>>[0];

async function recordCancelAck(
  { tx, markDone }: { tx: SqlTx; markDone: MarkDone },
  type: CancelAck,
  event: AckEvent,
  detail: object,
): Promise<void> {
  const { orderId } = event.payload;
  // One statement locks the order, crosses this acknowledgement off and records it; it returns how many
  // are still awaited.
  const rows = isUuid(orderId)
    ? await tx.$queryRaw<{ remaining: number }[]>`
        WITH o AS (
          UPDATE orders SET cancel_acks = array_remove(cancel_acks, ${type}::text), updated_at = now()
           WHERE id = ${orderId}::uuid
          RETURNING id, cardinality(cancel_acks) AS remaining
        ), h AS (${historyOf(orderId, event, [[type, detail]])})
        SELECT remaining FROM o`
    : [];
  const order = rows[0];
  // No such order: the acknowledgement of a reversal of an orphaned effect (reconcile/reverse-orphans.ts).
  // Nothing to record; its order.cancelled is done, but only a row about this very order id (a forged
  // acknowledgement naming a real cancellation as its cause closes nothing).
  if (!order) return void (await markDone(event.envelope.causationId, orderId));
  if (order.remaining === 0) await markDone(event.envelope.causationId);
}

export const recordStockReleased: Step<"inventory.released", SqlTx> = (event, ctx) =>
  recordCancelAck(ctx, "inventory.released", event, {});

export const recordPointsReversed: Step<"points.reversed", SqlTx> = (event, ctx) =>
  recordCancelAck(ctx, "points.reversed", event, { points: event.payload.points });

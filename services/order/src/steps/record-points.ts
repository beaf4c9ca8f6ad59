// points.granted -> the order records the points granted; order.confirmed's wait ends (row done).
import { isUuid } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import { markDone } from "@orderflow/outbox";
import type { Step } from "@orderflow/service-runtime";
import { historyOf } from "./order-rows.ts";

export const recordPoints: Step<"points.granted", SqlTx> = async (event, { tx }) => {
  const { orderId, points } = event.payload;
  if (!isUuid(orderId)) return;
  // The update locks the order; no order, no row updated, nothing recorded and nothing marked done.
  const recorded = await tx.$executeRaw`
    WITH o AS (
      UPDATE orders SET points_granted = ${points}::int, updated_at = now()
       WHERE id = ${orderId}::uuid
      RETURNING id
    ) ${historyOf(event, [["points.granted", { points }]])}`;
  if (recorded > 0) await markDone(tx, event.envelope.causationId);
};

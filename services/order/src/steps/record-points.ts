// points.granted -> the order records the points granted, whether the order is confirmed yet or not (points
// grants on the reservation, beside the confirm). An order.confirmed this service wrote for a v1
// reservation is the reply's cause: its row becomes done; for any other cause the mark finds no row.
// Set-based: one statement records a consumer batch's grants.
import { isUuid } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import { batchStep } from "@orderflow/service-runtime";
import { historiesOf } from "./order-rows.ts";

export const recordPoints = batchStep<"points.granted", SqlTx>(
  (event) => event.payload.orderId.toLowerCase(),
  async (events, { tx, each }) => {
    const valid = events.filter((e) => isUuid(e.payload.orderId));
    // The update locks the orders; no order, no row updated, nothing recorded and nothing marked done.
    const recorded =
      valid.length === 0
        ? []
        : await tx.$queryRaw<{ id: string }[]>`
        WITH i AS (
          SELECT * FROM unnest(${valid.map((e) => e.payload.orderId)}::uuid[],
                               ${valid.map((e) => e.payload.points)}::int[]) AS i(order_id, points)
        ), o AS (
          UPDATE orders SET points_granted = i.points, updated_at = now()
            FROM i
           WHERE orders.id = i.order_id
          RETURNING orders.id
        ), h AS (${historiesOf(
          valid.map((e) => ({
            orderId: e.payload.orderId,
            cause: e,
            lines: [["points.granted", { points: e.payload.points }]],
          })),
        )})
        SELECT id::text AS id FROM o`;
    const ids = new Set(recorded.map((r) => r.id));
    for (const [i, e] of events.entries())
      if (ids.has(e.payload.orderId.toLowerCase())) await each(i).markDone(e.envelope.causationId);
    return events.map(() => undefined);
  },
);

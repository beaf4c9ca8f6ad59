// points.granted -> the order records the points granted; order.confirmed's wait ends (row done).
import { markDone } from "@orderflow/outbox";
import type { Step } from "@orderflow/service-runtime";
import type { Tx } from "../db.ts";
import { lockOrder, recordHistory } from "./order-rows.ts";

export const recordPoints: Step<"points.granted", Tx> = async (event, { tx }) => {
  const { orderId, points } = event.payload;
  if (!(await lockOrder(tx, orderId))) return;
  await markDone(tx, event.envelope.causationId);
  await tx.order.update({ where: { id: orderId }, data: { pointsGranted: points } });
  await recordHistory(tx, orderId, "points.granted", event, { points });
};

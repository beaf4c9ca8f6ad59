// inventory.released and points.reversed both acknowledge order.cancelled; its outbox row is done only
// after both have, so a cancellation missing one of them stays "sent" for reconciliation to find.
import { markDone } from "@orderflow/outbox";
import type { Step } from "@orderflow/service-runtime";
import type { CANCEL_ACKS } from "../cancel-acks.ts";
import type { Tx } from "../db.ts";
import { lockOrder, recordHistory } from "./order-rows.ts";

type CancelAck = (typeof CANCEL_ACKS)[number];
type AckEvent = Parameters<Step<CancelAck, Tx>>[0];

async function recordCancelAck(tx: Tx, type: CancelAck, event: AckEvent, detail: object): Promise<void> {
  const { orderId } = event.payload;
  // No such order: the acknowledgement of a reversal of an orphaned effect (reconcile/reverse-orphans.ts).
  // Nothing to record; its order.cancelled is done, but only a row about this very order id (a forged
  // acknowledgement naming a real cancellation as its cause closes nothing).
  if (!(await lockOrder(tx, orderId))) return void (await markDone(tx, event.envelope.causationId, orderId));
  const order = await tx.order.findUniqueOrThrow({ where: { id: orderId } });
  const remaining = order.cancelAcks.filter((a) => a !== type);
  await tx.order.update({ where: { id: orderId }, data: { cancelAcks: remaining } });
  await recordHistory(tx, orderId, type, event, detail);
  if (remaining.length === 0) await markDone(tx, event.envelope.causationId);
}

export const recordStockReleased: Step<"inventory.released", Tx> = (event, { tx }) =>
  recordCancelAck(tx, "inventory.released", event, {});

export const recordPointsReversed: Step<"points.reversed", Tx> = (event, { tx }) =>
  recordCancelAck(tx, "points.reversed", event, { points: event.payload.points });

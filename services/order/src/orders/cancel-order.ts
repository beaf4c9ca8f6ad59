// POST /orders/:id/cancel: a CONFIRMED order becomes CANCELLED and order.cancelled asks inventory to
// release the stock and points to reverse the grant (each once: their inboxes dedupe the message).
// Cancelling a cancelled order answers with it unchanged; a PENDING order cannot be cancelled yet.
import { randomUUID } from "node:crypto";
import { HttpProblem } from "@orderflow/http";
import type { ServiceRuntime } from "@orderflow/service-runtime";
import { CANCEL_ACKS } from "../cancel-acks.ts";
import type { Db, Tx } from "../db.ts";
import type { RequestContext } from "./create-order.ts";
import { type OrderView, readOrder } from "./view.ts";

export async function cancelOrder(
  deps: { db: Db; runtime: Pick<ServiceRuntime<Tx>, "inTransaction"> },
  id: string,
  ctx: RequestContext,
): Promise<OrderView> {
  await deps.runtime.inTransaction(async (tx, enqueue) => {
    const rows = await tx.$queryRawUnsafe<{ status: string }[]>(
      `SELECT status FROM orders WHERE id = $1::uuid FOR UPDATE`,
      id,
    );
    const status = rows[0]?.status;
    if (!status) throw new HttpProblem("NOT_FOUND", `order ${id} does not exist`);
    if (status === "CANCELLED") return;
    if (status !== "CONFIRMED") {
      throw new HttpProblem(
        "INVALID_STATE",
        `order ${id} is ${status}: only a CONFIRMED order can be cancelled`,
      );
    }
    const order = await tx.order.findUniqueOrThrow({ where: { id } });
    const messageId = randomUUID();
    await tx.order.update({
      where: { id },
      data: {
        status: "CANCELLED",
        cancelReason: "cancelled by the customer",
        cancelledMessageId: messageId,
        cancelAcks: [...CANCEL_ACKS],
        history: { create: { event: "order.cancelled", detail: { messageId, by: "customer" } } },
      },
    });
    await enqueue({
      eventType: "order.cancelled",
      aggregateType: "order",
      aggregateId: id,
      messageId,
      payload: {
        orderId: id,
        customerId: order.customerId,
        reason: "cancelled by the customer",
        wasConfirmed: true,
      },
      correlationId: order.correlationId,
      causationId: messageId,
      ...(ctx.traceparent ? { traceparent: ctx.traceparent } : {}),
    });
  });
  const view = await readOrder(deps.db, id);
  if (!view) throw new HttpProblem("NOT_FOUND", `order ${id} does not exist`);
  return view;
}

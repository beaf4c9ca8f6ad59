// Points' side of the saga. Each handler runs in the consumer's transaction, after the inbox claim.
import { randomUUID } from "node:crypto";
import { pointsFor } from "@orderflow/contracts";
import type { SqlTx } from "@orderflow/db";
import type { Handler, Handlers } from "@orderflow/messaging";
import { enqueue } from "@orderflow/outbox";
import type { Tx } from "./db.ts";

const prismaOf = (tx: SqlTx): Tx => tx as Tx;

async function lockGrant(tx: Tx, orderId: string) {
  const rows = await tx.$queryRawUnsafe<{ status: string; points: number; customer_id: string }[]>(
    `SELECT status, points, customer_id FROM grants WHERE order_id = $1 FOR UPDATE`,
    orderId,
  );
  return rows[0];
}

/** naive: the fault lab's "naive consumer" (no state guard): a redelivered order.confirmed grants again. */
const grantWith =
  (naive: boolean): Handler<"order.confirmed"> =>
  async (e, raw) => {
    const tx = prismaOf(raw);
    const { orderId, customerId, total } = e.payload;
    const existing = naive ? undefined : await lockGrant(tx, orderId);
    const replyId = randomUUID();
    // A tombstone (the cancellation came first) grants nothing, but still answers: 0 points.
    const points = existing ? 0 : pointsFor(total);
    if (!existing) {
      await tx.$executeRawUnsafe(
        `INSERT INTO accounts (customer_id, balance) VALUES ($1, $2)
       ON CONFLICT (customer_id) DO UPDATE SET balance = accounts.balance + EXCLUDED.balance, updated_at = now()`,
        customerId,
        points,
      );
      const granted = { customerId, points, status: "GRANTED" as const, replyMessageId: replyId };
      if (naive)
        await tx.grant.upsert({ where: { orderId }, create: { orderId, ...granted }, update: granted });
      else await tx.grant.create({ data: { orderId, ...granted } });
    } else {
      await tx.grant.update({ where: { orderId }, data: { replyMessageId: replyId } });
    }
    await enqueue(tx, {
      eventType: "points.granted",
      aggregateType: "grant",
      aggregateId: orderId,
      messageId: replyId,
      payload: { orderId, customerId, points },
      correlationId: e.envelope.correlationId,
      causationId: e.envelope.messageId,
    });
  };

const reverse: Handler<"order.cancelled"> = async (e, raw) => {
  const tx = prismaOf(raw);
  const { orderId, customerId } = e.payload;
  const existing = await lockGrant(tx, orderId);
  const replyId = randomUUID();
  let reversed = 0;
  if (existing?.status === "GRANTED") {
    reversed = existing.points;
    await tx.$executeRawUnsafe(
      `UPDATE accounts SET balance = balance - $2, updated_at = now() WHERE customer_id = $1`,
      existing.customer_id,
      reversed,
    );
  }
  await tx.grant.upsert({
    where: { orderId },
    create: { orderId, customerId, points: 0, status: "REVERSED", replyMessageId: replyId },
    update: { status: "REVERSED", replyMessageId: replyId },
  });
  await enqueue(tx, {
    eventType: "points.reversed",
    aggregateType: "grant",
    aggregateId: orderId,
    messageId: replyId,
    payload: { orderId, customerId, points: reversed },
    correlationId: e.envelope.correlationId,
    causationId: e.envelope.messageId,
  });
};

export function pointsHandlers(o: { naive?: boolean } = {}): Handlers {
  return { "order.confirmed": grantWith(o.naive === true), "order.cancelled": reverse };
}

// order.cancelled -> take back what was granted, once, and answer points.reversed. It answers also when
// nothing was granted: that reply is the acknowledgement the order service waits for, and the REVERSED
// tombstone it leaves makes a late inventory.reserved (or order.confirmed) grant nothing.

import type { SqlTx } from "@orderflow/db";
import { replyTo, type Step } from "@orderflow/service-runtime";
import { lockGrant } from "./lock-grant.ts";

export const reversePoints: Step<"order.cancelled", SqlTx> = async (event, { tx, enqueue }) => {
  const { orderId, customerId } = event.payload;
  const existing = await lockGrant(tx, orderId);
  const reply = replyTo(event);
  let reversed = 0;
  if (existing?.status === "GRANTED") {
    reversed = existing.points;
    // The grant row is locked (lockGrant): the tombstone and the debit go in one statement.
    await tx.$executeRaw`
      WITH g AS (
        UPDATE grants SET status = 'REVERSED', reply_message_id = ${reply.messageId}::uuid, updated_at = now()
         WHERE order_id = ${orderId}
      )
      UPDATE accounts SET balance = balance - ${reversed}::int, updated_at = now()
       WHERE customer_id = ${existing.customer_id}`;
  } else {
    await tx.$executeRaw`
      INSERT INTO grants (order_id, customer_id, points, status, reply_message_id)
      VALUES (${orderId}, ${customerId}, 0, 'REVERSED', ${reply.messageId}::uuid)
      ON CONFLICT (order_id) DO UPDATE
        SET status = 'REVERSED', reply_message_id = EXCLUDED.reply_message_id, updated_at = now()`;
  }
  await enqueue({
    eventType: "points.reversed",
    aggregateType: "grant",
    aggregateId: orderId,
    payload: { orderId, customerId, points: reversed },
    ...reply,
  });
};

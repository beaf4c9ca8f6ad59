// The trigger of the no-reconciliation experiment, in both the pitfall and its pair: a share of
// order.created deliveries fail for good at inventory on their first arrival. The step runs a statement
// PostgreSQL refuses (division by zero, a data error), so the consumer parks the message as poison at
// once, as it would for a real bug or bad data. A later copy of the same message (reconciliation re-sends
// the original, same id) succeeds: the failure was in the moment, not in the message.
import type { SqlTx } from "@orderflow/db";
import type { Step } from "@orderflow/service-runtime";

export function failFirstDeliveries(
  step: Step<"order.created", SqlTx>,
  share: number,
): Step<"order.created", SqlTx> {
  const failedOnce = new Set<string>();
  return async (event, ctx) => {
    const id = event.envelope.messageId;
    if (!failedOnce.has(id) && Math.random() < share) {
      failedOnce.add(id);
      await ctx.tx.$executeRawUnsafe("SELECT 1 / 0");
    }
    return step(event, ctx);
  };
}

// inventory.stock-changed -> the read model of stock (stock_levels) shows the SKU's level the event carries.
// Each event is the whole level after a change, so applying one is an overwrite, and only the order they
// were written in gives the right answer: the consumer applies an ordered stream's messages in sequence
// (its turn check, docs/ordering.md). The row keeps the sequence it shows, and counts any level applied
// with a sequence not above it: a stream applied out of order shows there, and in the lab's audit.

import type { SqlTx } from "@orderflow/db";
import { PoisonMessageError } from "@orderflow/messaging";
import type { Step } from "@orderflow/service-runtime";

export const recordStockLevel: Step<"inventory.stock-changed", SqlTx> = async (event, { tx }) => {
  const sequence = event.stream?.sequence;
  if (sequence === undefined)
    throw new PoisonMessageError(
      "inventory.stock-changed without x-sequence: its stream cannot be kept in order",
    );
  const { sku, available, reserved } = event.payload;
  await tx.$executeRaw`
    INSERT INTO stock_levels (sku, available, reserved, sequence, updated_at)
    VALUES (${sku}, ${available}, ${reserved}, ${sequence}, now())
    ON CONFLICT (sku) DO UPDATE
      SET available = EXCLUDED.available, reserved = EXCLUDED.reserved, sequence = EXCLUDED.sequence,
          out_of_order = stock_levels.out_of_order + (EXCLUDED.sequence <= stock_levels.sequence)::int,
          updated_at = now()`;
};

import type { SqlTx } from "@orderflow/db";

/** The order's grant row, locked for the rest of the transaction; undefined when there is none yet. */
export async function lockGrant(tx: SqlTx, orderId: string) {
  const rows = await tx.$queryRawUnsafe<{ status: string; points: number; customer_id: string }[]>(
    `SELECT status, points, customer_id FROM grants WHERE order_id = $1 FOR UPDATE`,
    orderId,
  );
  return rows[0];
}

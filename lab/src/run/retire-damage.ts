// A pitfall leaves damage on purpose: orders stuck PENDING, confirmed without their points, cancelled with
// acks never coming. Once the audit has counted it, the lab retires that damage: each such order of the run
// is marked the way the reconciliation job marks an order it gave up on (repairs past any limit, in the
// order's status). Otherwise the job, in every later scenario of `pnpm fault all`, would spend its runs
// re-sending a pitfall's leftovers (thousands at the lab's rate) ahead of the orders that scenario checks.
// The rows stay as they are, for the report and for anyone who looks; a later change of status (a late
// reply) makes the order the job's again, as in production.
import type { Stack } from "@orderflow/infra";
import { withDb } from "../audit/snapshot.ts";

/** Marks this run's unfinished orders as given up on; returns how many. */
export async function retireDamage(s: Stack, prefix: string): Promise<number> {
  return withDb(s, "order", async (c) => {
    const r = await c.query(
      `UPDATE orders
          SET reconcile_repairs = 1000000, reconcile_repairs_status = status
        WHERE customer_id LIKE $1
          AND (status = 'PENDING'
               OR (status = 'CONFIRMED' AND points_granted IS NULL)
               OR (status = 'CANCELLED' AND cardinality(cancel_acks) > 0))`,
      [`${prefix}%`],
    );
    return r.rowCount ?? 0;
  });
}

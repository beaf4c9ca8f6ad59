// One page of a service's per-order effects (inventory's reservations, points' grants) in the order they
// were created, for the order service's reconciliation to find effects whose order does not exist. Keyset
// paging on (created_at, order_id): a page never repeats or skips a row however many arrive meanwhile.
import type { SqlTx } from "@orderflow/db";
import { keyString } from "@orderflow/http";

const ISO = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$";

/** The query string of a page route: ?status=&before=&afterAt=&afterId=&limit= */
export const effectsPageQuery = (statuses: readonly string[]) =>
  ({
    type: "object",
    additionalProperties: false,
    required: ["status", "before"],
    properties: {
      status: { type: "string", enum: statuses },
      before: { type: "string", pattern: ISO, description: "only effects created before this instant" },
      afterAt: { type: "string", pattern: ISO, description: "next.afterAt of the previous page" },
      afterId: keyString,
      limit: { type: "string", pattern: "^[0-9]{1,4}$", description: "1-1000, default 500" },
    },
  }) as const;

export interface EffectsPageQuery {
  status: string;
  before: string;
  afterAt?: string;
  afterId?: string;
  limit?: string;
}

export interface EffectRow {
  orderId: string;
  customerId: string | null;
  createdAt: string;
}

export interface EffectsPage {
  items: EffectRow[];
  /** Where the next page starts; null after the last one. */
  next: { afterAt: string; afterId: string } | null;
}

/** `table` and `customerColumn` are the service's own constants, never request input. */
export async function readEffectsPage(
  db: Pick<SqlTx, "$queryRawUnsafe">,
  table: "reservations" | "grants",
  customerColumn: "customer_id" | "NULL",
  q: EffectsPageQuery,
): Promise<EffectsPage> {
  const limit = Math.min(1_000, Math.max(1, Number(q.limit ?? 500)));
  const rows = await db.$queryRawUnsafe<{ orderId: string; customerId: string | null; createdAt: Date }[]>(
    `SELECT order_id AS "orderId", ${customerColumn} AS "customerId", created_at AS "createdAt"
       FROM ${table}
      WHERE status = $1 AND created_at < $2::timestamptz
        AND ($3::timestamptz IS NULL OR (created_at, order_id) > ($3::timestamptz, $4::text))
      ORDER BY created_at, order_id
      LIMIT $5`,
    q.status,
    q.before,
    q.afterAt ?? null,
    q.afterId ?? "",
    limit,
  );
  const items = rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
  const last = items.at(-1);
  return {
    items,
    next: items.length === limit && last ? { afterAt: last.createdAt, afterId: last.orderId } : null,
  };
}

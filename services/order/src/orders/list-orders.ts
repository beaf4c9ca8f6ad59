// GET /orders: newest first, keyset paging on (created_at, id) so pages stay stable while orders arrive.
import { HttpProblem } from "@orderflow/http";
import type { Db } from "../db.ts";
import { type OrderView, toView, VIEW_INCLUDE } from "./view.ts";

const encode = (createdAt: Date, id: string) =>
  Buffer.from(`${createdAt.toISOString()}|${id}`).toString("base64url");

// A cursor is only ever one this service wrote: an ISO time and an order id. Anything else (a date
// PostgreSQL cannot hold, an id that is not a UUID) is refused here rather than by the database.
const CURSOR =
  /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

function decode(cursor: string): { createdAt: Date; id: string } {
  const m = CURSOR.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  const createdAt = new Date(m?.[1] ?? "");
  if (!m || Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== m[1])
    throw new HttpProblem("VALIDATION_FAILED", "cursor is not one this service gave out");
  return { createdAt, id: m[2] as string };
}

export async function listOrders(
  db: Db,
  q: { status: string | undefined; limit: number; cursor: string | undefined },
): Promise<{ items: OrderView[]; nextCursor: string | null }> {
  const after = q.cursor ? decode(q.cursor) : undefined;
  const rows = await db.order.findMany({
    where: {
      ...(q.status ? { status: q.status } : {}),
      ...(after
        ? {
            OR: [
              { createdAt: { lt: after.createdAt } },
              { createdAt: after.createdAt, id: { lt: after.id } },
            ],
          }
        : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: q.limit + 1,
    include: VIEW_INCLUDE,
  });
  const page = rows.slice(0, q.limit);
  const items = page.map(toView);
  const last = page.at(-1);
  return { items, nextCursor: rows.length > q.limit && last ? encode(last.createdAt, last.id) : null };
}

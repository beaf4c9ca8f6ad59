// GET /orders: newest first, keyset paging on (created_at, id) so pages stay stable while orders arrive.
import { HttpProblem } from "@orderflow/http";
import type { Db } from "../db.ts";
import { type OrderView, toView, VIEW_INCLUDE } from "./view.ts";

const encode = (createdAt: Date, id: string) =>
  Buffer.from(`${createdAt.toISOString()}|${id}`).toString("base64url");

function decode(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const createdAt = new Date(at ?? "");
  if (!id || Number.isNaN(createdAt.getTime()))
    throw new HttpProblem("VALIDATION_FAILED", "cursor is not valid");
  return { createdAt, id };
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

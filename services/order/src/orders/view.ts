// The order as the API shows it.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Db, Tx } from "../db.ts";

export interface OrderView {
  id: string;
  customerId: string;
  status: "PENDING" | "CONFIRMED" | "CANCELLED";
  lines: { sku: string; quantity: number; unitPrice: number }[];
  total: number;
  pointsGranted: number | null;
  cancelReason: string | null;
  createdAt: string;
  updatedAt: string;
  history: { at: string; event: string; detail: unknown }[];
}

/** What a query must include for `toView`. */
export const VIEW_INCLUDE = {
  lines: { orderBy: { lineNo: "asc" } },
  history: { orderBy: { id: "asc" } },
} as const satisfies Prisma.OrderInclude;

type OrderWithParts = Prisma.OrderGetPayload<{ include: typeof VIEW_INCLUDE }>;

export async function readOrder(db: Db | Tx, id: string): Promise<OrderView | undefined> {
  const o = await db.order.findUnique({ where: { id }, include: VIEW_INCLUDE });
  return o ? toView(o) : undefined;
}

export function toView(o: OrderWithParts): OrderView {
  return {
    id: o.id,
    customerId: o.customerId,
    status: o.status as OrderView["status"],
    lines: o.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, unitPrice: l.unitPrice })),
    total: o.total,
    pointsGranted: o.pointsGranted,
    cancelReason: o.cancelReason,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
    history: o.history.map((h) => ({ at: h.at.toISOString(), event: h.event, detail: h.detail })),
  };
}

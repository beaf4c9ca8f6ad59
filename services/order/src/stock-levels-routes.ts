// The read model of inventory's stock, as inventory.stock-changed left it: what an order page would show
// without calling inventory. It lags inventory by the stream's delivery time and never goes backwards.
import { HttpProblem, keyString } from "@orderflow/http";
import type { FastifyInstance } from "fastify";
import type { Db } from "./db.ts";

const levelView = {
  type: "object",
  properties: {
    sku: { type: "string" },
    available: { type: "integer" },
    reserved: { type: "integer" },
    sequence: { type: "integer" },
    updatedAt: { type: "string" },
  },
} as const;

type Row = { sku: string; available: number; reserved: number; sequence: bigint; updatedAt: Date };
const view = (r: Row) => ({
  sku: r.sku,
  available: r.available,
  reserved: r.reserved,
  sequence: Number(r.sequence),
  updatedAt: r.updatedAt.toISOString(),
});

export function registerStockLevelRoutes(app: FastifyInstance, db: Db): void {
  app.get(
    "/stock-levels",
    {
      schema: {
        summary: "Every SKU's stock as this service last heard it (inventory.stock-changed)",
        response: { 200: { type: "object", properties: { items: { type: "array", items: levelView } } } },
      },
    },
    async () => ({ items: (await db.stockLevel.findMany({ orderBy: { sku: "asc" } })).map(view) }),
  );
  app.get(
    "/stock-levels/:sku",
    {
      schema: {
        summary: "One SKU's stock as this service last heard it",
        params: { type: "object", required: ["sku"], properties: { sku: keyString } },
        response: { 200: levelView },
      },
    },
    async (req) => {
      const { sku } = req.params as { sku: string };
      const level = await db.stockLevel.findUnique({ where: { sku } });
      if (!level) throw new HttpProblem("NOT_FOUND", `no stock level heard for SKU ${sku}`);
      return view(level);
    },
  );
}

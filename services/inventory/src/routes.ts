// The inventory API: stock per SKU (PUT is the admin/seed operation), reservations per order.
// Every change of stock, PUT included, writes the SKU's new level as inventory.stock-changed.
import { HttpProblem, keyString } from "@orderflow/http";
import { resendMessage } from "@orderflow/outbox";
import {
  type EffectsPageQuery,
  effectsPageQuery,
  readEffectsPage,
  type ServiceRuntime,
} from "@orderflow/service-runtime";
import type { FastifyInstance } from "fastify";
import type { Db, Tx } from "./db.ts";
import { publishLevels, type StockLevel } from "./steps/stock-changed.ts";

const skuParams = {
  type: "object",
  required: ["sku"],
  properties: { sku: keyString },
} as const;
const orderParams = {
  type: "object",
  required: ["orderId"],
  properties: { orderId: keyString },
} as const;
const stockView = {
  type: "object",
  properties: { sku: { type: "string" }, available: { type: "integer" }, reserved: { type: "integer" } },
} as const;

export function registerInventoryRoutes(
  app: FastifyInstance,
  deps: { db: Db; runtime: Pick<ServiceRuntime<Tx>, "relay" | "inTransaction"> },
): undefined {
  const { db } = deps;
  const view = (s: { sku: string; available: number; reserved: number }) => ({
    sku: s.sku,
    available: s.available,
    reserved: s.reserved,
  });

  app.get("/stock", { schema: { summary: "Every SKU's stock" } }, async () => ({
    items: (await db.stock.findMany({ orderBy: { sku: "asc" } })).map(view),
  }));

  app.get(
    "/stock/:sku",
    { schema: { summary: "One SKU's stock", params: skuParams, response: { 200: stockView } } },
    async (req) => {
      const { sku } = req.params as { sku: string };
      const s = await db.stock.findUnique({ where: { sku } });
      if (!s) throw new HttpProblem("NOT_FOUND", `SKU ${sku} is unknown`);
      return view(s);
    },
  );

  app.put(
    "/stock/:sku",
    {
      schema: {
        summary: "Set the available stock of a SKU (admin / seed)",
        params: skuParams,
        body: {
          type: "object",
          additionalProperties: false,
          required: ["available"],
          properties: { available: { type: "integer", minimum: 0, maximum: 1_000_000_000 } },
        },
        response: { 200: stockView },
      },
    },
    async (req) => {
      const { sku } = req.params as { sku: string };
      const { available } = req.body as { available: number };
      // The new level and its inventory.stock-changed commit together, as every change of stock does.
      return view(
        await deps.runtime.inTransaction(async (tx, enqueue) => {
          const [level] = await tx.$queryRaw<StockLevel[]>`
            INSERT INTO stock (sku, available, updated_at) VALUES (${sku}, ${available}, now())
            ON CONFLICT (sku) DO UPDATE SET available = EXCLUDED.available, updated_at = now()
            RETURNING sku, available, reserved`;
          const written = level as StockLevel;
          await publishLevels(enqueue, [written]);
          return written;
        }),
      );
    },
  );

  app.get(
    "/reservations",
    {
      schema: {
        summary: "Reservations by status, oldest first (reconciliation looks for ones without an order)",
        querystring: effectsPageQuery(["RESERVED", "REJECTED", "RELEASED"]),
      },
    },
    async (req) => readEffectsPage(db, "reservations", "NULL", req.query as EffectsPageQuery),
  );

  app.get(
    "/reservations/:orderId",
    { schema: { summary: "The reservation decided for an order", params: orderParams } },
    async (req) => {
      const { orderId } = req.params as { orderId: string };
      const r = await db.reservation.findUnique({ where: { orderId } });
      if (!r) throw new HttpProblem("NOT_FOUND", `no reservation for order ${orderId}`);
      return {
        orderId: r.orderId,
        status: r.status,
        reason: r.reason,
        lines: r.lines,
        createdAt: r.createdAt.toISOString(),
        updatedAt: r.updatedAt.toISOString(),
      };
    },
  );

  app.post(
    "/reservations/:orderId/replay-reply",
    { schema: { summary: "Re-send the last reply for an order (reconciliation)", params: orderParams } },
    async (req, reply) => {
      const { orderId } = req.params as { orderId: string };
      const r = await db.reservation.findUnique({ where: { orderId } });
      if (!r) throw new HttpProblem("NOT_FOUND", `no reservation for order ${orderId}`);
      const resent = await resendMessage(db, r.replyMessageId);
      deps.runtime.relay.wake();
      return reply.code(202).send({ orderId, messageId: r.replyMessageId, resent });
    },
  );
}

// The order API. Handlers are thin: parse, call the use case, shape the answer.
import { isTraceparent } from "@orderflow/contracts";
import { HttpProblem, keyString, uuidString } from "@orderflow/http";
import type { ServiceRuntime } from "@orderflow/service-runtime";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Db, Tx } from "./db.ts";
import { cancelOrder } from "./orders/cancel-order.ts";
import { createOrder, type NewOrder, type RequestContext } from "./orders/create-order.ts";
import { listOrders } from "./orders/list-orders.ts";
import { readOrder } from "./orders/view.ts";
import type { Reconciliation } from "./reconcile/schedule.ts";
import { listQuery, newOrderBody, orderIdParams, orderView } from "./schemas.ts";
import { registerStockLevelRoutes } from "./stock-levels-routes.ts";

export interface RouteDeps {
  db: Db;
  runtime: Pick<ServiceRuntime<Tx>, "inTransaction" | "writeWithEvents">;
  reconciliation?: Pick<Reconciliation, "runOnce" | "invariants">;
}

const context = (req: FastifyRequest): RequestContext => {
  const tp = req.headers.traceparent;
  return { correlationId: req.id, traceparent: isTraceparent(tp) ? tp : undefined };
};

export function registerOrderRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.post(
    "/orders",
    {
      schema: {
        summary: "Place an order (Idempotency-Key header required)",
        headers: {
          type: "object",
          properties: { "idempotency-key": keyString },
        },
        body: newOrderBody,
        response: { 200: orderView, 201: orderView },
      },
    },
    async (req, reply) => {
      const key = req.headers["idempotency-key"];
      if (typeof key !== "string" || key.length === 0) throw new HttpProblem("IDEMPOTENCY_KEY_REQUIRED");
      const { order, replayed } = await createOrder(deps, key, req.body as NewOrder, context(req));
      return reply.code(replayed ? 200 : 201).send(order);
    },
  );

  app.get(
    "/orders/:id",
    {
      schema: { summary: "One order with its history", params: orderIdParams, response: { 200: orderView } },
    },
    async (req) => {
      const { id } = req.params as { id: string };
      const order = await readOrder(deps.db, id);
      if (!order) throw new HttpProblem("NOT_FOUND", `order ${id} does not exist`);
      return order;
    },
  );

  app.get(
    "/orders",
    { schema: { summary: "Orders, newest first, by status (cursor paging)", querystring: listQuery } },
    async (req) => {
      const q = req.query as { status?: string; limit?: string; cursor?: string };
      const limit = q.limit === undefined ? 50 : Number(q.limit);
      if (limit < 1 || limit > 200)
        throw new HttpProblem("VALIDATION_FAILED", "limit must be between 1 and 200");
      return listOrders(deps.db, { status: q.status, limit, cursor: q.cursor });
    },
  );

  app.post(
    "/orders/:id/cancel",
    { schema: { summary: "Cancel a confirmed order", params: orderIdParams, response: { 200: orderView } } },
    async (req) => cancelOrder(deps, (req.params as { id: string }).id, context(req)),
  );

  registerStockLevelRoutes(app, deps.db);

  const reconciliation = deps.reconciliation;
  if (!reconciliation) return;
  app.post(
    "/admin/reconcile",
    {
      schema: {
        summary:
          "Run reconciliation now (olderThanMs overrides the staleness threshold; orderId: one order only)",
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: {
            olderThanMs: { type: "string", pattern: "^[0-9]{1,10}$" },
            orderId: uuidString,
          },
        },
      },
    },
    async (req) => {
      const q = req.query as { olderThanMs?: string; orderId?: string };
      return reconciliation.runOnce(
        q.olderThanMs === undefined ? undefined : Number(q.olderThanMs),
        q.orderId,
      );
    },
  );
  app.get(
    "/admin/invariants",
    { schema: { summary: "Check the stock-and-points invariants now" } },
    async () => reconciliation.invariants(),
  );
}

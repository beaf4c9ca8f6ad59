// The points API: a customer's balance with its grants; grants per order for reconciliation.
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

const idParam = (name: string) =>
  ({
    type: "object",
    required: [name],
    properties: { [name]: keyString },
  }) as const;

type GrantRow = {
  orderId: string;
  customerId: string;
  points: number;
  status: string;
  createdAt: Date;
  updatedAt: Date;
};
const grantView = (g: GrantRow) => ({
  orderId: g.orderId,
  customerId: g.customerId,
  points: g.points,
  status: g.status,
  createdAt: g.createdAt.toISOString(),
  updatedAt: g.updatedAt.toISOString(),
});

export function registerPointsRoutes(
  app: FastifyInstance,
  deps: { db: Db; runtime: Pick<ServiceRuntime<Tx>, "relay"> },
): undefined {
  const { db } = deps;

  app.get("/points", { schema: { summary: "Every customer's balance" } }, async () => ({
    items: (await db.account.findMany({ orderBy: { customerId: "asc" } })).map((a) => ({
      customerId: a.customerId,
      balance: Number(a.balance), // BIGINT; exact in JSON up to 2^53
    })),
  }));

  app.get(
    "/points/:customerId",
    { schema: { summary: "A customer's balance and grants", params: idParam("customerId") } },
    async (req) => {
      const { customerId } = req.params as { customerId: string };
      const [account, grants] = await Promise.all([
        db.account.findUnique({ where: { customerId } }),
        db.grant.findMany({ where: { customerId }, orderBy: { createdAt: "asc" } }),
      ]);
      return { customerId, balance: Number(account?.balance ?? 0), grants: grants.map(grantView) };
    },
  );

  app.get(
    "/grants",
    {
      schema: {
        summary: "Grants by status, oldest first (reconciliation looks for ones without an order)",
        querystring: effectsPageQuery(["GRANTED", "REVERSED"]),
      },
    },
    async (req) => readEffectsPage(db, "grants", "customer_id", req.query as EffectsPageQuery),
  );

  app.get(
    "/grants/:orderId",
    { schema: { summary: "The grant for an order", params: idParam("orderId") } },
    async (req) => {
      const { orderId } = req.params as { orderId: string };
      const g = await db.grant.findUnique({ where: { orderId } });
      if (!g) throw new HttpProblem("NOT_FOUND", `no grant for order ${orderId}`);
      return grantView(g);
    },
  );

  app.post(
    "/grants/:orderId/replay-reply",
    {
      schema: { summary: "Re-send the last reply for an order (reconciliation)", params: idParam("orderId") },
    },
    async (req, reply) => {
      const { orderId } = req.params as { orderId: string };
      const g = await db.grant.findUnique({ where: { orderId } });
      if (!g) throw new HttpProblem("NOT_FOUND", `no grant for order ${orderId}`);
      const resent = await resendMessage(db, g.replyMessageId);
      deps.runtime.relay.wake();
      return reply.code(202).send({ orderId, messageId: g.replyMessageId, resent });
    },
  );
}

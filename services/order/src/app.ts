// Builds the order service's HTTP app from its dependencies; main.ts listens. Tests use app.inject.
import { createBaseApp } from "@orderflow/http";
import type { FastifyInstance, FastifyServerOptions } from "fastify";
import type { Registry } from "prom-client";
import { type RouteDeps, registerOrderRoutes } from "./routes.ts";

export async function buildApp(
  deps: RouteDeps & {
    metrics: Registry;
    readiness: Record<string, () => Promise<boolean>>;
    logger?: FastifyServerOptions["logger"];
  },
): Promise<FastifyInstance> {
  const app = await createBaseApp({
    service: "order",
    metrics: deps.metrics,
    readiness: deps.readiness,
    ...(deps.logger !== undefined ? { logger: deps.logger } : {}),
  });
  registerOrderRoutes(app, deps);
  return app;
}

// The service's API description: the OpenAPI document at /openapi.json, built from the route schemas,
// and Swagger UI at /docs to read and try it in a browser. The UI's scripts and styles come from the
// plugin's own package, so the page works on a machine without internet access.
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";

const DOCS_PREFIX = "/docs";

export async function registerApiDocs(
  app: FastifyInstance,
  info: { service: string; version: string },
): Promise<void> {
  await app.register(swagger, {
    openapi: { info: { title: `orderflow ${info.service} service`, version: info.version } },
  });
  // Public, like /openapi.json: the page shows only what the document says, and every call it makes is
  // an ordinary request (an /admin one still needs the admin token).
  await app.register(swaggerUi, { routePrefix: DOCS_PREFIX });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}

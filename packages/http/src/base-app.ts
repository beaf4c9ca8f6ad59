// What every service's HTTP app has in common: strict JSON validation (unknown fields rejected, no type
// coercion), problem JSON errors, a correlation id per request, health and readiness, Prometheus metrics
// and its OpenAPI document with Swagger UI. Each service adds its own routes to the returned instance.
import { randomUUID } from "node:crypto";
import type { Logger } from "@orderflow/logging";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import type { Registry } from "prom-client";
import { guardAdminRoutes } from "./admin-guard.ts";
import { registerApiDocs } from "./api-docs.ts";
import { answerClientError } from "./client-errors.ts";
import { answerFrameworkError, installProblemHandlers, sendProblem } from "./error-handler.ts";
import { MAX_PARAM_LENGTH } from "./fields.ts";
import { registerHttpMetrics } from "./http-metrics.ts";
import { problemBody } from "./problems.ts";
import { registerTracing } from "./tracing.ts";

export const CORRELATION_HEADER = "x-correlation-id";

export interface BaseAppOptions {
  service: string;
  version?: string;
  /** Each dependency's readiness check; /health/ready answers 503 naming those that fail. */
  readiness: Record<string, () => Promise<boolean>>;
  metrics: Registry;
  /** The process's logger: request lines then share its format and fields. Default: no request logs. */
  logger?: Logger;
  /** Bytes; larger bodies get 413. Default 64 KiB. */
  bodyLimit?: number;
  /** A request not received whole within this gets 408. Default 10 s. */
  requestTimeoutMs?: number;
  /** The bearer token of /admin routes; unset, they refuse every request. */
  adminToken?: string | undefined;
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function createBaseApp(opts: BaseAppOptions): Promise<FastifyInstance> {
  // Typed as fastify's own logger interface, so routes keep the plain FastifyInstance type.
  const loggerInstance: FastifyBaseLogger | undefined = opts.logger;
  const requestTimeout = opts.requestTimeoutMs ?? 10_000;
  const app = Fastify({
    ...(loggerInstance ? { loggerInstance } : { logger: false }),
    // One line per request, written when it is answered (onResponse below), instead of fastify's two:
    // on POST /orders the pair cost about as much CPU as the request's own SQL statements.
    // The correlation id labels the request's log lines.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "correlationId" }),
    bodyLimit: opts.bodyLimit ?? 64 * 1024,
    // A request must arrive whole within requestTimeout (a client that stops sending its body is cut
    // off with a 408), checked every second; an idle keep-alive socket closes after keepAliveTimeout
    // (fastify's 72 s), a silent one after connectionTimeout. Node enforces neither timeout while
    // headersTimeout (60 s unless set) exceeds requestTimeout, and fastify sets only the latter.
    requestTimeout,
    connectionTimeout: 120_000,
    http: { connectionsCheckingInterval: 1_000, headersTimeout: requestTimeout },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // The correlation id travels from the HTTP request into every event and back; accept the caller's.
    genReqId: (req) => {
      const given = req.headers[CORRELATION_HEADER];
      return typeof given === "string" && SAFE_ID.test(given) ? given : randomUUID();
    },
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true, useDefaults: true },
    },
  });
  installProblemHandlers(app);
  if (loggerInstance)
    app.addHook("onResponse", (req, reply, done) => {
      const { method, url } = req;
      const ms = Math.round(reply.elapsedTime * 10) / 10;
      req.log.info(
        { method, url, statusCode: reply.statusCode, responseTimeMs: ms },
        "http.request_completed",
      );
      done();
    });
  registerTracing(app);
  guardAdminRoutes(app, { token: opts.adminToken });
  // JSON only: fastify's default text/plain parser would hand a string to a JSON schema (400, not 415).
  app.removeContentTypeParser("text/plain");
  // Graceful close: once close() has begun, every response tells its keep-alive client to hang up, so
  // close() waits only for requests in flight, not for idle client pools (fastify keeps idle
  // connections 72 s; a client pool reuses them as long as that).
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onSend", async (req, reply) => {
    reply.header(CORRELATION_HEADER, req.id);
    if (closing) reply.header("connection", "close");
  });
  await registerHttpMetrics(app, opts.metrics);
  await registerApiDocs(app, { service: opts.service, version: opts.version ?? "1.0.0" });

  // Probes and scrapes arrive every few seconds: logged only when they fail.
  app.get("/health/live", { schema: { hide: true }, logLevel: "warn" }, async () => ({ status: "ok" }));
  app.get("/health/ready", { schema: { hide: true }, logLevel: "warn" }, async (_req, reply) => {
    const entries = await Promise.all(
      Object.entries(opts.readiness).map(async ([name, check]) => {
        try {
          return [name, await check()] as const;
        } catch {
          return [name, false] as const;
        }
      }),
    );
    const checks = Object.fromEntries(entries);
    const failing = entries.filter(([, ok]) => !ok).map(([n]) => n);
    if (failing.length > 0) {
      return sendProblem(reply, problemBody("NOT_READY", `not ready: ${failing.join(", ")}`, { checks }));
    }
    return { status: "ready", checks };
  });
  app.get("/metrics", { schema: { hide: true }, logLevel: "warn" }, async (_req, reply) =>
    reply.type(opts.metrics.contentType).send(await opts.metrics.metrics()),
  );
  return app;
}

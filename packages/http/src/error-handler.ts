// Maps every failure of a request to problem JSON: our own HttpProblem, fastify's body parsing and
// schema validation errors (4xx, never 5xx), and anything unexpected (500, logged, details withheld).
import { isDataError } from "@orderflow/db";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { HttpProblem, type ProblemBody, type ProblemCode, problemBody } from "./problems.ts";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export function sendProblem(reply: FastifyReply, body: ProblemBody): FastifyReply {
  return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(body);
}

const FASTIFY_CODES: Record<string, ProblemCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "VALIDATION_FAILED",
  FST_ERR_CTP_BODY_TOO_LARGE: "BODY_TOO_LARGE",
  FST_ERR_CTP_EMPTY_JSON_BODY: "MALFORMED_JSON",
  FST_ERR_CTP_INVALID_JSON_BODY: "MALFORMED_JSON",
  FST_ERR_BAD_URL: "MALFORMED_URL",
  FST_ERR_MAX_PARAM_LENGTH: "URI_TOO_LONG",
};

function toProblem(err: unknown, req: FastifyRequest): ProblemBody {
  if (err instanceof HttpProblem) return problemBody(err.code, err.message, err.extra);
  if (typeof err !== "object" || err === null) {
    req.log.error({ err }, "non-error thrown");
    return problemBody("INTERNAL", undefined, { correlationId: req.id });
  }
  const fe = err as FastifyError;
  if (fe.validation) {
    const errors = fe.validation.map((v) => ({
      path: `${fe.validationContext ?? "body"}${v.instancePath || ""}`,
      message:
        v.keyword === "additionalProperties"
          ? `unknown field "${String((v.params as { additionalProperty?: string }).additionalProperty)}"`
          : (v.message ?? v.keyword),
    }));
    return problemBody("VALIDATION_FAILED", errors.map((e) => `${e.path}: ${e.message}`).join("; "), {
      errors,
    });
  }
  const mapped = fe.code ? FASTIFY_CODES[fe.code] : undefined;
  if (mapped) return problemBody(mapped, fe.message);
  if (err instanceof SyntaxError) return problemBody("MALFORMED_JSON", err.message);
  // A value the schemas let through and PostgreSQL refused (class 22): the request's fault, not ours.
  if (isDataError(err)) {
    req.log.warn({ err }, "request value refused by the database");
    return problemBody("VALIDATION_FAILED", "a value in the request cannot be stored");
  }
  if (typeof fe.statusCode === "number" && fe.statusCode >= 400 && fe.statusCode < 500) {
    return problemBody("VALIDATION_FAILED", fe.message);
  }
  req.log.error({ err }, "unhandled error");
  return problemBody("INTERNAL", undefined, { correlationId: req.id });
}

/** Fastify's `frameworkErrors` option: a bad URL encoding or an over-long path parameter, as problem JSON. */
export function answerFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  void sendProblem(reply, toProblem(err, req));
}

export function installProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => sendProblem(reply, { ...toProblem(err, req), instance: req.url }));
  app.setNotFoundHandler((req, reply) =>
    sendProblem(reply, { ...problemBody("NOT_FOUND", `${req.method} ${req.url}`), instance: req.url }),
  );
}

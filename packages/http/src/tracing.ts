// The HTTP server span of every request (OpenTelemetry, when tracing is on): it continues the caller's
// W3C `traceparent` when that is valid and stays active for the whole request, so what the handler
// enqueues (the outbox row captures the active trace context) and logs joins the request's trace.
// Probes, the scrape and the API docs get no span: they arrive every few seconds and would bury the
// requests people make. With tracing off no hook is even installed.
import {
  bindToSpan,
  contextFromTraceparent,
  failSpan,
  type Span,
  SpanKind,
  startSpan,
  tracingOn,
  withActiveSpan,
} from "@orderflow/telemetry";
import type { FastifyInstance, FastifyRequest } from "fastify";

const UNTRACED = /^\/(metrics$|openapi\.json$|health\/|docs(\/|$))/;

export function registerTracing(app: FastifyInstance): void {
  if (!tracingOn()) return;
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook("onRequest", (req, reply, done) => {
    const route = req.routeOptions.url;
    if (route && UNTRACED.test(route)) return done();
    const path = req.url.split("?", 1)[0] ?? req.url;
    const span = startSpan(route ? `${req.method} ${route}` : req.method, {
      kind: SpanKind.SERVER,
      // A request without a valid traceparent starts a trace of its own.
      parent: contextFromTraceparent(req.headers.traceparent),
      attributes: {
        "http.request.method": req.method,
        "url.path": path,
        ...(route ? { "http.route": route } : {}),
        "orderflow.correlation_id": req.id,
      },
    });
    if (!span) return done();
    spans.set(req, span);
    // The body arrives in events the socket emits, outside this context: bind them to the span.
    bindToSpan(span, req.raw);
    bindToSpan(span, reply.raw);
    withActiveSpan(span, done);
  });
  app.addHook("onResponse", (req, reply, done) => {
    const span = spans.get(req);
    if (span) {
      span.setAttribute("http.response.status_code", reply.statusCode);
      if (reply.statusCode >= 500) failSpan(span, `HTTP ${reply.statusCode}`);
      span.end();
      spans.delete(req);
    }
    done();
  });
  app.addHook("onRequestAbort", (req, done) => {
    const span = spans.get(req);
    if (span) {
      failSpan(span, "client aborted the request");
      span.end();
      spans.delete(req);
    }
    done();
  });
}

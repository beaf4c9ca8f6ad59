// Request rate, errors and latency of every route, through fastify-metrics on the service's own registry
// (so one /metrics carries them next to the outbox and consumer metrics):
//   http_request_duration_seconds{method, route, status_code} (histogram; its _count is the request rate
//   and, by status_code, the error rate).
// `route` is the route template (/orders/:id), never the raw URL: a scan of random paths cannot grow the
// series without bound, and every unknown path collapses into one label. The probes and the scrape
// (/health/*, /metrics) and the API docs (/docs, /openapi.json) are left out: they arrive every few seconds and would drown
// the routes people call.
import type { FastifyInstance } from "fastify";
// A CommonJS module whose plugin is only `exports.default`: what Node gives an ES import is the exports object.
import fastifyMetricsModule from "fastify-metrics";
import promClient, { type Registry } from "prom-client";

export const UNKNOWN_ROUTE = "__unknown__";

const fastifyMetrics = fastifyMetricsModule.default;

const UNMEASURED = /^\/(metrics$|openapi\.json$|health\/|docs(\/|$))/;

export async function registerHttpMetrics(app: FastifyInstance, registry: Registry): Promise<void> {
  // fastify-metrics leaves out routes whose config says so; mark the operational ones as they are added.
  app.addHook("onRoute", (route) => {
    if (UNMEASURED.test(route.url)) route.config = { ...route.config, disableMetrics: true };
  });
  await app.register(fastifyMetrics, {
    // Our prom-client (the plugin's peer): its classes, but every metric on the registry given here.
    promClient,
    // The service serves /metrics itself (from the same registry) and collects the default metrics.
    endpoint: null,
    defaultMetrics: { enabled: false },
    routeMetrics: {
      enabled: { histogram: true, summary: false },
      // Unregistered paths (404s) are measured too, under UNKNOWN_ROUTE: a flood of them is worth seeing.
      registeredRoutesOnly: false,
      invalidRouteGroup: UNKNOWN_ROUTE,
      overrides: {
        histogram: {
          help: "HTTP request duration by method, route template and status code",
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
          registers: [registry],
        },
        // The plugin builds its summary even when disabled: keep it off the global registry.
        summary: { registers: [] },
      },
    },
  });
}

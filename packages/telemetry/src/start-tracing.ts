// Turns tracing on for one process when an OTLP endpoint is configured: a tracer provider with the
// process's resource, a batch span processor and the OTLP/HTTP exporter in the protocol asked for
// (protobuf or JSON), registered globally with the AsyncLocalStorage context manager and the W3C
// propagator. Without an endpoint nothing of the SDK is even loaded (imported on demand).
import { context, DiagLogLevel, diag, propagation, trace } from "@opentelemetry/api";
import type { Logger } from "@orderflow/logging";
import type { SamplerName, TelemetryEnv } from "./env.ts";
import { setTracer } from "./spans.ts";

export interface Tracing {
  readonly enabled: boolean;
  /** Exports the spans still buffered, then stops recording. Safe to call twice. */
  shutdown(): Promise<void>;
}

export interface TracedProcess {
  /** service.name unless OTEL_SERVICE_NAME says otherwise: "order", "outbox-relay"... */
  serviceName: string;
  serviceVersion?: string;
}

const OFF: Tracing = { enabled: false, shutdown: async () => {} };

async function sampler(name: SamplerName, ratio: number) {
  const s = await import("@opentelemetry/sdk-trace-base");
  const root = name.endsWith("always_off")
    ? new s.AlwaysOffSampler()
    : name.endsWith("traceidratio")
      ? new s.TraceIdRatioBasedSampler(ratio)
      : new s.AlwaysOnSampler();
  return name.startsWith("parentbased_") ? new s.ParentBasedSampler({ root }) : root;
}

async function exporter(env: TelemetryEnv & { tracesUrl: string }) {
  const config = { url: env.tracesUrl, headers: env.headers, timeoutMillis: env.exportTimeoutMs };
  if (env.protocol === "http/json") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    return new OTLPTraceExporter(config);
  }
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter(config);
}

/** The SDK's own complaints (an export that failed, a full queue) as warnings in the process's log. */
function routeDiagnostics(log: Logger): void {
  const warn =
    (event: string) =>
    (message: string, ...args: unknown[]) =>
      log.warn({ detail: message, args: args.map(String) }, event);
  const ignore = () => {};
  diag.setLogger(
    {
      error: warn("tracing.error"),
      warn: warn("tracing.warning"),
      info: ignore,
      debug: ignore,
      verbose: ignore,
    },
    DiagLogLevel.WARN,
  );
}

export async function startTracing(env: TelemetryEnv, proc: TracedProcess, log: Logger): Promise<Tracing> {
  const url = env.tracesUrl;
  if (url === undefined) return OFF;
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/resources"),
  ]);
  routeDiagnostics(log);
  const serviceName = env.serviceName ?? proc.serviceName;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      ...env.resourceAttributes,
      "service.name": serviceName,
      ...(proc.serviceVersion ? { "service.version": proc.serviceVersion } : {}),
    }),
    sampler: await sampler(env.sampler, env.samplerArg),
    spanProcessors: [
      new BatchSpanProcessor(await exporter({ ...env, tracesUrl: url }), {
        scheduledDelayMillis: env.batch.scheduleDelayMs,
        maxQueueSize: env.batch.maxQueueSize,
        maxExportBatchSize: env.batch.maxExportBatchSize,
        exportTimeoutMillis: env.batch.exportTimeoutMs,
      }),
    ],
  });
  provider.register();
  setTracer(provider.getTracer("orderflow"));
  log.info({ url, protocol: env.protocol, serviceName }, "tracing.started");
  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    shutdown: () => {
      stopped ??= (async () => {
        setTracer(undefined);
        // The last flush fails when the collector is gone (Jaeger stopped, its host unknown). Those
        // spans are lost either way; a shutdown that failed for it would turn a clean exit into exit 1.
        try {
          await provider.shutdown();
        } catch (e) {
          log.warn({ err: e, url }, "tracing.flush-failed");
        }
        // The process is as before: a later startTracing (a test's) can register its own.
        trace.disable();
        context.disable();
        propagation.disable();
        diag.disable();
      })();
      return stopped;
    },
  };
}

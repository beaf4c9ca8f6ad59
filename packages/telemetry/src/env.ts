// The standard OTEL_* variables this project honours, checked by @orderflow/config. Every process reads
// them through its own env.ts (service-runtime's readCommonEnv, the relay's readOutboxEnv), which passes
// its environment in; the values then go to the SDK explicitly, so nothing depends on what the SDK would
// read by itself.
import { bool, ConfigError, int, num, oneOf, type RawEnv, readEnv, str, url } from "@orderflow/config";

export const OTLP_PROTOCOLS = ["http/protobuf", "http/json"] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

export const SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;
export type SamplerName = (typeof SAMPLERS)[number];

export interface TelemetryEnv {
  /** Where spans go (the traces URL itself, ".../v1/traces"); undefined: tracing is off. */
  tracesUrl: string | undefined;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME; undefined: the process's own name. */
  serviceName: string | undefined;
  resourceAttributes: Record<string, string>;
  sampler: SamplerName;
  /** The ratio of the traceidratio samplers, 0-1. */
  samplerArg: number;
  exportTimeoutMs: number;
  batch: {
    scheduleDelayMs: number;
    maxQueueSize: number;
    maxExportBatchSize: number;
    exportTimeoutMs: number;
  };
}

const schema = {
  disabled: bool("OTEL_SDK_DISABLED").default(false),
  tracesEndpoint: url("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", ["http:", "https:"]),
  endpoint: url("OTEL_EXPORTER_OTLP_ENDPOINT", ["http:", "https:"]),
  protocol: oneOf(
    ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"],
    OTLP_PROTOCOLS,
  ).default("http/protobuf"),
  headers: str(["OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"]),
  timeoutMs: int(["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"], { min: 1 }).default(
    10_000,
  ),
  serviceName: str("OTEL_SERVICE_NAME"),
  resourceAttributes: str("OTEL_RESOURCE_ATTRIBUTES"),
  tracesExporter: oneOf("OTEL_TRACES_EXPORTER", ["otlp", "none"]).default("otlp"),
  sampler: oneOf("OTEL_TRACES_SAMPLER", SAMPLERS).default("parentbased_always_on"),
  samplerArg: num("OTEL_TRACES_SAMPLER_ARG", { min: 0, max: 1 }).default(1),
  bspScheduleDelay: int("OTEL_BSP_SCHEDULE_DELAY", { min: 0 }).default(5_000),
  bspMaxQueueSize: int("OTEL_BSP_MAX_QUEUE_SIZE", { min: 1 }).default(2_048),
  bspMaxExportBatchSize: int("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", { min: 1 }).default(512),
  bspExportTimeout: int("OTEL_BSP_EXPORT_TIMEOUT", { min: 1 }).default(30_000),
};

/**
 * W3C baggage-style "k=v,k2=v2" with percent-encoded values (the format of OTEL_EXPORTER_OTLP_HEADERS and
 * OTEL_RESOURCE_ATTRIBUTES). Returns undefined when an entry is not k=v.
 */
export function parseKeyValues(text: string | undefined): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const entry of (text ?? "").split(",")) {
    if (entry.trim() === "") continue;
    const eq = entry.indexOf("=");
    if (eq <= 0) return undefined;
    try {
      out[decodeURIComponent(entry.slice(0, eq).trim())] = decodeURIComponent(entry.slice(eq + 1).trim());
    } catch {
      return undefined;
    }
  }
  return out;
}

/** The traces URL: the signal's own endpoint as given, or the base endpoint + /v1/traces (OTLP's rule). */
function tracesUrl(e: {
  tracesEndpoint?: string | undefined;
  endpoint?: string | undefined;
}): string | undefined {
  if (e.tracesEndpoint) return e.tracesEndpoint;
  if (e.endpoint) return `${e.endpoint.replace(/\/+$/, "")}/v1/traces`;
  return undefined;
}

export function readTelemetryEnv(env: RawEnv): TelemetryEnv {
  const e = readEnv(schema, env);
  const headers = parseKeyValues(e.headers);
  const resourceAttributes = parseKeyValues(e.resourceAttributes);
  const problems: string[] = [];
  if (!headers)
    problems.push("OTEL_EXPORTER_OTLP_HEADERS must be a list of key=value, got an entry without =");
  if (!resourceAttributes)
    problems.push("OTEL_RESOURCE_ATTRIBUTES must be a list of key=value, got an entry without =");
  if (problems.length > 0) throw new ConfigError(problems);
  const off = e.disabled || e.tracesExporter === "none";
  return {
    tracesUrl: off ? undefined : tracesUrl(e),
    protocol: e.protocol,
    headers: headers ?? {},
    serviceName: e.serviceName,
    resourceAttributes: resourceAttributes ?? {},
    sampler: e.sampler,
    samplerArg: e.samplerArg,
    exportTimeoutMs: e.timeoutMs,
    batch: {
      scheduleDelayMs: e.bspScheduleDelay,
      maxQueueSize: e.bspMaxQueueSize,
      maxExportBatchSize: e.bspMaxExportBatchSize,
      exportTimeoutMs: e.bspExportTimeout,
    },
  };
}

/** Tracing off: what a process gets when it reads no OTEL_* variable. */
export const TRACING_OFF: TelemetryEnv = readTelemetryEnv({});

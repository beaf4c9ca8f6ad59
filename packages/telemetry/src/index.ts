// @orderflow/telemetry: one trace per order (OpenTelemetry). readTelemetryEnv reads the standard OTEL_*
// variables; startTracing turns tracing on when an endpoint is set; the span helpers are free while off.
export {
  OTLP_PROTOCOLS,
  type OtlpProtocol,
  parseKeyValues,
  readTelemetryEnv,
  SAMPLERS,
  type SamplerName,
  type TelemetryEnv,
  TRACING_OFF,
} from "./env.ts";
export {
  type Attributes,
  activeTraceparent,
  annotateActiveSpan,
  bindToSpan,
  contextFromTraceparent,
  failActiveSpan,
  failSpan,
  inSpan,
  type Span,
  SpanKind,
  type SpanStart,
  startSpan,
  traceparentOf,
  tracingOn,
  withActiveSpan,
} from "./spans.ts";
export { startTracing, type TracedProcess, type Tracing } from "./start-tracing.ts";

// Without an OTLP endpoint tracing is off: no provider, no span objects, no trace fields in log lines, and
// the span helpers simply run what they wrap. Also how the OTEL_* variables read.
import { Writable } from "node:stream";
import { trace } from "@opentelemetry/api";
import { ConfigError } from "@orderflow/config";
import { createLogger } from "@orderflow/logging";
import { describe, expect, test } from "vitest";
import {
  activeTraceparent,
  inSpan,
  readTelemetryEnv,
  SpanKind,
  startSpan,
  startTracing,
  TRACING_OFF,
  tracingOn,
} from "../src/index.ts";

const TP = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { lines, log: createLogger({ name: "t", level: "info", destination }) };
}

describe("tracing off", () => {
  test("no endpoint: startTracing registers nothing and spans are never created", async () => {
    const { log, lines } = capture();
    const tracing = await startTracing(
      readTelemetryEnv({ OTEL_SERVICE_NAME: "x" }),
      { serviceName: "t" },
      log,
    );
    expect(tracing.enabled).toBe(false);
    expect(tracingOn()).toBe(false);
    expect(startSpan("nothing", { kind: SpanKind.INTERNAL, parent: TP })).toBeUndefined();
    // No global provider was registered: the API still hands out its no-op proxy.
    expect(trace.getTracerProvider().constructor.name).toBe("ProxyTracerProvider");
    const result = await inSpan("wrapped", { kind: SpanKind.INTERNAL }, async () => {
      log.info("inside");
      return activeTraceparent();
    });
    expect(result).toBeUndefined();
    expect(lines.find((l) => l.event === "inside")).not.toHaveProperty("traceId");
    expect(lines.some((l) => l.event === "tracing.started")).toBe(false);
    await tracing.shutdown();
  });

  test("OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn it off even with an endpoint", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };
    expect(readTelemetryEnv({ ...endpoint, OTEL_SDK_DISABLED: "true" }).tracesUrl).toBeUndefined();
    expect(readTelemetryEnv({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }).tracesUrl).toBeUndefined();
    expect(TRACING_OFF.tracesUrl).toBeUndefined();
  });
});

describe("OTEL_* variables", () => {
  test("the base endpoint gets /v1/traces; the traces endpoint is used as given and wins", () => {
    expect(readTelemetryEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).tracesUrl).toBe(
      "http://collector:4318/v1/traces",
    );
    expect(
      readTelemetryEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://jaeger:4318/custom",
      }).tracesUrl,
    ).toBe("http://jaeger:4318/custom");
  });

  test("protocol defaults to http/protobuf; the traces-specific variable wins", () => {
    expect(readTelemetryEnv({}).protocol).toBe("http/protobuf");
    expect(readTelemetryEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }).protocol).toBe("http/json");
    expect(
      readTelemetryEnv({
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
      }).protocol,
    ).toBe("http/protobuf");
  });

  test("headers and resource attributes are key=value lists with percent-encoded values", () => {
    const e = readTelemetryEnv({
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc, x-tenant=t1",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=local",
      OTEL_BSP_SCHEDULE_DELAY: "250",
    });
    expect(e.headers).toEqual({ authorization: "Bearer abc", "x-tenant": "t1" });
    expect(e.resourceAttributes).toEqual({ "deployment.environment": "local" });
    expect(e.batch.scheduleDelayMs).toBe(250);
  });

  test("bad values are named all at once", () => {
    let err: unknown;
    try {
      readTelemetryEnv({
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
        OTEL_EXPORTER_OTLP_ENDPOINT: "not a url",
        OTEL_EXPORTER_OTLP_HEADERS: "novalue",
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join("\n");
    expect(problems).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json/);
    expect(problems).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT must be a URL/);
  });
});

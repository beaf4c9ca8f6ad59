// With an endpoint, spans reach an OTLP/HTTP receiver in the protocol asked for (JSON or protobuf), are
// flushed by shutdown, continue a given traceparent, and every log line written inside a span carries its
// traceId and spanId.
import { Writable } from "node:stream";
import { createLogger } from "@orderflow/logging";
import { type OtlpReceiver, SPAN_KIND, startOtlpReceiver } from "@orderflow/testkit/otlp-receiver.ts";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  activeTraceparent,
  inSpan,
  type OtlpProtocol,
  readTelemetryEnv,
  SpanKind,
  startTracing,
  tracingOn,
} from "../src/index.ts";

const PARENT_TRACE = "0af7651916cd43dd8448eb211c80319c";
const PARENT_SPAN = "b7ad6b7169203331";

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

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

test.each<OtlpProtocol>(["http/json", "http/protobuf"])(
  "%s: a span continuing a traceparent reaches the receiver on shutdown, and log lines inside it name it",
  async (protocol) => {
    const { log, lines } = capture();
    const service = `svc-${protocol.replace("/", "-")}`;
    const env = readTelemetryEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      // Long: only shutdown's flush can deliver the span within this test.
      OTEL_BSP_SCHEDULE_DELAY: "60000",
    });
    const tracing = await startTracing(env, { serviceName: service }, log);
    expect(tracing.enabled).toBe(true);
    expect(tracingOn()).toBe(true);
    const tp = await inSpan(
      "handle thing",
      {
        kind: SpanKind.CONSUMER,
        parent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01`,
        attributes: { "messaging.system": "rabbitmq", attempt: 2, ok: true },
      },
      async () => {
        await new Promise((r) => setImmediate(r)); // across an async hop: the context follows
        log.info({ correlationId: "c-1" }, "inside");
        return activeTraceparent();
      },
    );
    log.info("outside");
    await tracing.shutdown();
    expect(tracingOn()).toBe(false);

    const span = receiver.spans().find((s) => s.service === service);
    expect(receiver.errors()).toEqual([]);
    expect(span).toMatchObject({
      traceId: PARENT_TRACE,
      parentSpanId: PARENT_SPAN,
      name: "handle thing",
      kind: SPAN_KIND.consumer,
      encoding: protocol === "http/json" ? "json" : "protobuf",
      attributes: { "messaging.system": "rabbitmq", attempt: 2, ok: true },
    });
    expect(tp).toBe(`00-${PARENT_TRACE}-${span?.spanId}-01`);
    const inside = lines.find((l) => l.event === "inside");
    expect(inside).toMatchObject({ traceId: PARENT_TRACE, spanId: span?.spanId, correlationId: "c-1" });
    expect(lines.find((l) => l.event === "outside")).not.toHaveProperty("traceId");
  },
);

test("shutdown resolves when the collector is gone, and names the spans' loss in the log", async () => {
  const { log, lines } = capture();
  // A port nothing listens on: the last flush is refused.
  const gone = await startOtlpReceiver();
  const url = gone.url;
  await gone.close();
  const env = readTelemetryEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_BSP_SCHEDULE_DELAY: "60000" });
  const tracing = await startTracing(env, { serviceName: "svc-gone" }, log);
  await inSpan("lost", { kind: SpanKind.INTERNAL }, async () => {});
  await expect(tracing.shutdown()).resolves.toBeUndefined();
  expect(tracingOn()).toBe(false);
  expect(lines.some((l) => l.event === "tracing.flush-failed")).toBe(true);
});

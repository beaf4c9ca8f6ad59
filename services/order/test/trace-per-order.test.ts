// One trace per order: the stack's apps restarted with OTEL_* pointing at an OTLP/HTTP receiver run by
// this test (inventory and points export OTLP/JSON, order and the relays protobuf), one order placed with
// a traceparent of the test's own, and every hop of its saga found in that one trace with the right
// parent: POST /orders -> publish order.created -> inventory's process -> publish inventory.reserved ->
// points' process (grant) -> publish points.granted -> order's process (record the points), and the
// branch beside it: publish inventory.reserved -> order's process (confirm). The normal apps are
// restored afterwards.

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { openStack, restartAppsWith } from "@orderflow/infra";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  SPAN_KIND,
  startOtlpReceiver,
} from "@orderflow/testkit/otlp-receiver.ts";
import { afterAll, beforeAll, expect, test } from "vitest";
import { eventually, finalOrders, openSaga, runId, type Saga, setStock } from "./helpers.ts";

let receiver: OtlpReceiver;
let saga: Saga | undefined;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  await restartAppsWith(openStack(undefined, false), {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      // Spans leave within a fraction of a second instead of OTel's 5 s.
      OTEL_BSP_SCHEDULE_DELAY: "200",
    },
    entries: {
      inventory: "services/order/test/fixtures/inventory-otlp-json.ts",
      points: "services/order/test/fixtures/points-otlp-json.ts",
    },
  });
  saga = await openSaga();
}, 300_000);

afterAll(async () => {
  try {
    await saga?.close();
    if (saga) await restartAppsWith(saga.stack, {});
  } finally {
    await receiver?.close();
  }
}, 300_000);

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

test("POST /orders, every publish and every consumer's step of one order share one trace, each span the child of the hop before", async () => {
  const s = saga as Saga;
  const run = runId();
  const sku = `trace-${run}-sku`;
  await setStock(s, sku, 10);
  const callerTrace = hex(16);
  const callerSpan = hex(8);
  // An order continuing a caller's trace (the test's own traceparent).
  const traced = await fetch(`${s.url.order}/orders`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "idempotency-key": `trace-${run}`,
      traceparent: `00-${callerTrace}-${callerSpan}-01`,
    },
    body: JSON.stringify({
      customerId: `trace-${run}-cust`,
      lines: [{ sku, quantity: 1, unitPrice: 1_250 }],
    }),
  });
  expect(traced.status).toBe(201);
  const order = (await traced.json()) as { id: string };
  const correlationId = traced.headers.get("x-correlation-id");
  await eventually("the traced order to be CONFIRMED with its points", async () => {
    const rows = await finalOrders(s, [order.id]);
    return rows[0]?.status === "CONFIRMED" ? rows[0] : undefined;
  });

  const inTrace = () => receiver.spans().filter((sp) => sp.traceId === callerTrace);
  const byName = (name: string, kind: number) =>
    inTrace().filter((sp) => sp.name === name && sp.kind === kind);
  const childOf = (parent: ReceivedSpan, name: string, kind: number, services: string[]) =>
    byName(name, kind).find((sp) => sp.parentSpanId === parent.spanId && services.includes(sp.service));
  // Spans arrive in batches from six processes, in no particular order: the last hop's consumer span can
  // be exported before the publish span it continues (that one ends at the broker's confirm, which may
  // come after the delivery). Wait until every hop has arrived, then check how they link.
  const expected: [string, number][] = [
    ["POST /orders", SPAN_KIND.server],
    ...["order.created", "inventory.reserved", "points.granted"].flatMap((type): [string, number][] => [
      [`publish ${type}`, SPAN_KIND.producer],
      [`process ${type}`, SPAN_KIND.consumer],
    ]),
  ];
  await eventually("every span of the saga at the receiver", async () =>
    expected.every(([name, kind]) => byName(name, kind).length > 0) &&
    byName("process inventory.reserved", SPAN_KIND.consumer).length >= 2
      ? true
      : undefined,
  );
  const describe = () =>
    inTrace()
      .map((sp) => `${sp.service} ${sp.name} ${sp.spanId} <- ${sp.parentSpanId}`)
      .join("\n");

  const server = byName("POST /orders", SPAN_KIND.server)[0];
  expect(server, describe()).toMatchObject({
    service: "order",
    parentSpanId: callerSpan,
    attributes: {
      "http.route": "/orders",
      "http.response.status_code": 201,
      "orderflow.correlation_id": correlationId,
    },
  });
  // Each publish is the service's fast path or its relay process (named relay-<service> by the stack;
  // "outbox-relay" is the relay's own default).
  const hops: [string, string][] = [
    ["order.created", "inventory"],
    ["inventory.reserved", "points"],
    ["points.granted", "order"],
  ];
  const publisherOf: Record<string, string> = {
    "order.created": "order",
    "inventory.reserved": "inventory",
    "points.granted": "points",
  };
  const processedAt = (publish: ReceivedSpan, type: string, consumer: string) => {
    const processed = childOf(publish, `process ${type}`, SPAN_KIND.consumer, [consumer]);
    expect(processed, `process ${type} at ${consumer}\n${describe()}`).toBeDefined();
    expect(processed?.attributes).toMatchObject({
      "messaging.system": "rabbitmq",
      "messaging.message.id": publish.attributes["messaging.message.id"],
      "messaging.message.conversation_id": correlationId,
      "orderflow.consumer.outcome": "done",
    });
    return processed as ReceivedSpan;
  };
  const published: Record<string, ReceivedSpan> = {};
  let parent = server as ReceivedSpan;
  for (const [type, consumer] of hops) {
    const publish = childOf(parent, `publish ${type}`, SPAN_KIND.producer, [
      publisherOf[type] as string,
      `relay-${publisherOf[type]}`,
      "outbox-relay",
    ]);
    expect(publish, `publish ${type} under ${parent.name}\n${describe()}`).toBeDefined();
    expect(publish?.attributes).toMatchObject({
      "messaging.system": "rabbitmq",
      "messaging.destination.name": "orderflow.events",
      "messaging.rabbitmq.destination.routing_key": type,
      "orderflow.publish.outcome": "confirmed",
    });
    published[type] = publish as ReceivedSpan;
    parent = processedAt(publish as ReceivedSpan, type, consumer);
  }
  // The branch: the same inventory.reserved confirms the order at the order service.
  processedAt(published["inventory.reserved"] as ReceivedSpan, "inventory.reserved", "order");
  // Both encodings arrived and decoded: inventory and points sent JSON, order protobuf.
  expect(receiver.errors()).toEqual([]);
  const encodings = new Set(inTrace().map((sp) => `${sp.service}:${sp.encoding}`));
  expect(encodings).toContain("order:protobuf");
  expect(encodings).toContain("inventory:json");
  expect(encodings).toContain("points:json");

  // Logs join up: order's line about the request carries the trace's ids and the correlation id.
  const parsed = (line: string) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  const logLine = await eventually("a log line of the order's trace in order's log", async () =>
    fs
      .readFileSync(path.join(s.stack.layout.stackDir, "apps", "order.log"), "utf8")
      .split("\n")
      .filter((l) => l.includes(callerTrace))
      .map(parsed)
      .find((l) => l?.correlationId === correlationId),
  );
  expect(logLine).toMatchObject({ traceId: callerTrace, spanId: server?.spanId });
});

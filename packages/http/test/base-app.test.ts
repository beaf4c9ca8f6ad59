import { PassThrough } from "node:stream";
import { createLogger } from "@orderflow/logging";
import { Registry } from "prom-client";
import { afterEach, describe, expect, test } from "vitest";
import { createBaseApp, HttpProblem } from "../src/index.ts";

const apps: Awaited<ReturnType<typeof createBaseApp>>[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

async function build(ready = true) {
  const app = await createBaseApp({
    service: "test",
    readiness: { database: async () => ready, broker: async () => true },
    metrics: new Registry(),
    bodyLimit: 1024,
  });
  app.post(
    "/things",
    {
      schema: {
        body: {
          type: "object",
          additionalProperties: false,
          required: ["name", "count"],
          properties: { name: { type: "string", minLength: 1 }, count: { type: "integer", minimum: 1 } },
        },
      },
    },
    async (req) => {
      if ((req.body as { name: string }).name === "taken")
        throw new HttpProblem("INVALID_STATE", "name taken");
      return { ok: true };
    },
  );
  app.get("/boom", async () => {
    throw new Error("secret internals");
  });
  apps.push(app);
  return app;
}

const post = (body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
  build().then((app) => app.inject({ method: "POST", url: "/things", payload: body, headers }));

describe("bad input gets a 4xx problem JSON, never a 5xx", () => {
  test.each([
    ["malformed JSON", "{not json", 400, "MALFORMED_JSON"],
    ["an empty body", "", 400, "MALFORMED_JSON"],
    ["an unknown field", '{"name":"a","count":1,"extra":true}', 400, "VALIDATION_FAILED"],
    ["a wrong type", '{"name":"a","count":"1"}', 400, "VALIDATION_FAILED"],
    ["a missing field", '{"name":"a"}', 400, "VALIDATION_FAILED"],
    ["an oversized body", JSON.stringify({ name: "x".repeat(2000), count: 1 }), 413, "BODY_TOO_LARGE"],
    ["a JSON array", "[]", 400, "VALIDATION_FAILED"],
  ])("%s", async (_what, body, status, code) => {
    const res = await post(body);
    expect(res.statusCode).toBe(status);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ status, code, title: expect.any(String) });
  });

  test("a body that is not JSON gets 415", async () => {
    const res = await post("name=a", { "content-type": "application/x-www-form-urlencoded" });
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  test("validation errors name the offending field", async () => {
    const res = await post('{"name":"a","count":1,"colour":"red"}');
    expect(res.json().errors).toEqual([{ path: "body", message: 'unknown field "colour"' }]);
  });

  test("an unknown route gets 404 problem JSON", async () => {
    const app = await build();
    const res = await app.inject({ method: "GET", url: "/nope" });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe("NOT_FOUND");
  });
});

test("a handler's HttpProblem keeps its code and status", async () => {
  const res = await post('{"name":"taken","count":1}');
  expect(res.statusCode).toBe(409);
  expect(res.json()).toMatchObject({ code: "INVALID_STATE", detail: "name taken" });
});

test("an unexpected error is a 500 problem that does not leak its message", async () => {
  const app = await build();
  const res = await app.inject({ method: "GET", url: "/boom", headers: { "x-correlation-id": "abc-123" } });
  expect(res.statusCode).toBe(500);
  expect(res.body).not.toContain("secret internals");
  expect(res.json()).toMatchObject({ code: "INTERNAL", correlationId: "abc-123" });
});

test("the caller's correlation id is echoed, and one is made up when absent", async () => {
  const app = await build();
  const given = await app.inject({
    method: "GET",
    url: "/health/live",
    headers: { "x-correlation-id": "req-42" },
  });
  expect(given.headers["x-correlation-id"]).toBe("req-42");
  const made = await app.inject({ method: "GET", url: "/health/live" });
  expect(made.headers["x-correlation-id"]).toMatch(/^[0-9a-f-]{36}$/);
});

test("readiness answers 503 naming the failing dependency", async () => {
  const app = await build(false);
  const res = await app.inject({ method: "GET", url: "/health/ready" });
  expect(res.statusCode).toBe(503);
  expect(res.json()).toMatchObject({ code: "NOT_READY", checks: { database: false, broker: true } });
});

test("the OpenAPI document lists the service's routes", async () => {
  const app = await build();
  await app.ready();
  const doc = (await app.inject({ method: "GET", url: "/openapi.json" })).json();
  expect(doc.openapi).toMatch(/^3\./);
  expect(Object.keys(doc.paths)).toContain("/things");
});

test("each answered request is logged once, with its status, time and correlation id", async () => {
  const out = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  out.on("data", (b: Buffer) => {
    for (const l of b.toString("utf8").split("\n")) if (l) lines.push(JSON.parse(l));
  });
  const app = await createBaseApp({
    service: "test",
    readiness: {},
    metrics: new Registry(),
    logger: createLogger({ name: "test", level: "info", destination: out }),
  });
  apps.push(app);
  app.get("/hello", async () => ({ ok: true }));
  const res = await app.inject({ method: "GET", url: "/hello", headers: { "x-correlation-id": "c-1" } });
  expect(res.statusCode).toBe(200);
  await new Promise((r) => setImmediate(r));
  const requests = lines.filter((l) => typeof l.url === "string");
  expect(requests).toEqual([
    expect.objectContaining({
      event: "http.request_completed",
      method: "GET",
      url: "/hello",
      statusCode: 200,
      correlationId: "c-1",
      responseTimeMs: expect.any(Number),
    }),
  ]);
});

import { Registry } from "prom-client";
import { afterEach, describe, expect, test } from "vitest";
import { createBaseApp } from "../src/index.ts";

const apps: Awaited<ReturnType<typeof createBaseApp>>[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

async function build() {
  const app = await createBaseApp({ service: "test", readiness: {}, metrics: new Registry() });
  app.get("/things/:id", async (req, reply) => {
    const { id } = req.params as { id: string };
    return id === "missing" ? reply.code(404).send({ missing: id }) : { id };
  });
  apps.push(app);
  return app;
}

/** The count samples of the request histogram, as label sets with their values. */
async function requestCounts(app: Awaited<ReturnType<typeof build>>) {
  const body = (await app.inject({ method: "GET", url: "/metrics" })).body;
  return body
    .split("\n")
    .filter((l) => l.startsWith("http_request_duration_seconds_count{"))
    .map((l) => {
      const [, labels = "", value = "0"] = /^[^{]+\{(.*)\} (\S+)$/.exec(l) ?? [];
      const set = Object.fromEntries([...labels.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      return { ...set, value: Number(value) };
    });
}

describe("HTTP request metrics on the service's /metrics", () => {
  test("a request shows up under its route template, not its URL, with its status code", async () => {
    const app = await build();
    await app.inject({ method: "GET", url: "/things/a" });
    await app.inject({ method: "GET", url: "/things/b" });
    const counts = await requestCounts(app);
    expect(counts).toContainEqual({ method: "GET", route: "/things/:id", status_code: "200", value: 2 });
    expect(counts.some((c) => "route" in c && String(c.route).includes("/things/a"))).toBe(false);
  });

  test("a 4xx counts under its status code, and unknown paths collapse into one route label", async () => {
    const app = await build();
    await app.inject({ method: "GET", url: "/things/missing" });
    for (const path of ["/nope", "/nope/1", "/random/abc"]) await app.inject({ method: "GET", url: path });
    const counts = await requestCounts(app);
    expect(counts).toContainEqual({ method: "GET", route: "/things/:id", status_code: "404", value: 1 });
    expect(counts).toContainEqual({ method: "GET", route: "__unknown__", status_code: "404", value: 3 });
  });

  test("probes, scrapes and the API docs stay out of the histogram", async () => {
    const app = await build();
    await app.inject({ method: "GET", url: "/health/live" });
    await app.inject({ method: "GET", url: "/health/ready" });
    await app.inject({ method: "GET", url: "/docs/json" });
    await app.inject({ method: "GET", url: "/openapi.json" });
    await app.inject({ method: "GET", url: "/metrics" });
    const counts = await requestCounts(app);
    expect(counts).toEqual([]);
  });
});

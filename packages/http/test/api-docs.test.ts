// Swagger UI at /docs, beside /openapi.json, served over a real socket as a browser would load it.
import { Registry } from "prom-client";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createBaseApp } from "../src/index.ts";

let app: Awaited<ReturnType<typeof createBaseApp>>;
let base: string;

beforeAll(async () => {
  app = await createBaseApp({
    service: "docs-test",
    readiness: {},
    metrics: new Registry(),
    adminToken: "secret",
  });
  app.get(
    "/widgets/:id",
    { schema: { params: { type: "object", properties: { id: { type: "string" } } } } },
    async () => ({}),
  );
  base = await app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(() => app.close());

/** The page's scripts and stylesheets, as URLs the browser would fetch. */
function assetsOf(html: string, page: string): URL[] {
  return [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css|png))"/g)].map(
    (m) => new URL(m[1] as string, page),
  );
}

test("GET /docs is the Swagger UI page, and every script and stylesheet it references loads", async () => {
  const page = await fetch(`${base}/docs`, { redirect: "follow" });
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  const html = await page.text();
  expect(html).toContain('<div id="swagger-ui">');
  const assets = assetsOf(html, page.url);
  expect(assets.map((u) => u.pathname)).toContain("/docs/static/swagger-ui-bundle.js");
  for (const url of assets) {
    const res = await fetch(url);
    expect(res.status, url.pathname).toBe(200);
    expect((await res.arrayBuffer()).byteLength, url.pathname).toBeGreaterThan(0);
  }
});

test("the UI loads the same document /openapi.json serves, with the service's routes in it", async () => {
  const served = await fetch(`${base}/openapi.json`);
  expect(served.status).toBe(200);
  const doc = (await served.json()) as { openapi: string; info: { title: string }; paths: object };
  expect(doc.openapi).toMatch(/^3\./);
  expect(doc.info.title).toBe("orderflow docs-test service");
  expect(Object.keys(doc.paths)).toEqual(["/widgets/{id}"]);
  const initializer = await (await fetch(`${base}/docs/static/swagger-initializer.js`)).text();
  expect(initializer).toContain("resolveUrl('./json')");
  expect(await (await fetch(`${base}/docs/json`)).json()).toEqual(doc);
});

test("/docs needs no token, and an unknown asset under it is a 404 problem", async () => {
  expect((await fetch(`${base}/docs/`)).status).toBe(200);
  const missing = await fetch(`${base}/docs/static/nope.js`);
  expect(missing.status).toBe(404);
  expect(missing.headers.get("content-type")).toMatch(/^application\/problem\+json/);
});

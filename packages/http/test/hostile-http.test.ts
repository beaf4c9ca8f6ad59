// What a careless or hostile client can send below the routes: every answer is problem JSON with a 4xx,
// whether fastify, its router or Node's HTTP parser met the problem.
import net from "node:net";
import { Registry } from "prom-client";
import { afterEach, describe, expect, test } from "vitest";
import { createBaseApp, keyString, MAX_PARAM_LENGTH, uuidString } from "../src/index.ts";

const apps: Awaited<ReturnType<typeof createBaseApp>>[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

async function build() {
  const app = await createBaseApp({
    service: "test",
    readiness: {},
    metrics: new Registry(),
    requestTimeoutMs: 500,
  });
  app.get(
    "/keys/:key",
    { schema: { params: { type: "object", properties: { key: keyString } } } },
    async (req) => ({
      key: (req.params as { key: string }).key,
    }),
  );
  app.get(
    "/ids/:id",
    { schema: { params: { type: "object", properties: { id: uuidString } } } },
    async () => ({}),
  );
  app.post(
    "/keys",
    {
      schema: {
        body: {
          type: "object",
          additionalProperties: false,
          required: ["key"],
          properties: { key: keyString },
        },
      },
    },
    async () => {
      // What node-postgres throws when a value passes the schema but not PostgreSQL.
      throw Object.assign(new Error("invalid byte sequence for encoding UTF8"), { code: "22021" });
    },
  );
  apps.push(app);
  return app;
}

const expectProblem = (
  res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  code: string,
) => {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers["content-type"])).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({ status, code });
};

describe("requests the routes never see", () => {
  test("a text/plain body is 415, not a schema error", async () => {
    const app = await build();
    const res = await app.inject({
      method: "POST",
      url: "/keys",
      payload: "key",
      headers: { "content-type": "text/plain" },
    });
    expectProblem(res, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  test("a badly percent-encoded URL is a 400 problem", async () => {
    const app = await build();
    expectProblem(await app.inject({ method: "GET", url: "/keys/%E0%A4%A" }), 400, "MALFORMED_URL");
  });

  test("the router takes every key the schema takes, 4-byte characters included; the schema says what is too long", async () => {
    const app = await build();
    const longest = "😀".repeat(200);
    const ok = await app.inject({ method: "GET", url: `/keys/${encodeURIComponent(longest)}` });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ key: longest });
    expectProblem(
      await app.inject({ method: "GET", url: `/keys/${"k".repeat(201)}` }),
      400,
      "VALIDATION_FAILED",
    );
    expectProblem(
      await app.inject({ method: "GET", url: `/keys/${"k".repeat(MAX_PARAM_LENGTH + 1)}` }),
      414,
      "URI_TOO_LONG",
    );
  });

  test.each([
    ["a NUL byte", "a\u0000b", "a%00b", "VALIDATION_FAILED"],
    ["a control character", "a\u0007b", "a%07b", "VALIDATION_FAILED"],
    // A lone surrogate has no UTF-8 form: in a URL it can only come as its invalid 3-byte encoding.
    ["a lone surrogate", "a\ud800b", "a%ED%A0%80b", "MALFORMED_URL"],
    // "." and ".." name no key: in a URL they are path navigation, so the router never sees them as one.
    ["a dot segment", "..", "..", "NOT_FOUND"],
  ])("a key with %s is a 4xx problem in a body and in a path", async (_what, key, rawPath, pathCode) => {
    const app = await build();
    const body = JSON.stringify({ key });
    const headers = { "content-type": "application/json" };
    expectProblem(
      await app.inject({ method: "POST", url: "/keys", payload: body, headers }),
      400,
      "VALIDATION_FAILED",
    );
    const inPath = await app.inject({ method: "GET", url: `/keys/${rawPath}` });
    expectProblem(inPath, pathCode === "NOT_FOUND" ? 404 : 400, pathCode);
  });

  test.each([
    "urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e",
    "{0f8fad5b-d9cb-469f-a165-70867728950e}",
    "0f8fad5bd9cb469fa16570867728950e",
  ])("the id %s is a 400 problem: ids are 36-character UUIDs", async (id) => {
    const app = await build();
    expectProblem(
      await app.inject({ method: "GET", url: `/ids/${encodeURIComponent(id)}` }),
      400,
      "VALIDATION_FAILED",
    );
  });

  test("a value PostgreSQL refuses (SQLSTATE class 22) is a 400 problem, not a 500", async () => {
    const app = await build();
    const res = await app.inject({ method: "POST", url: "/keys", payload: { key: "fine" } });
    expectProblem(res, 400, "VALIDATION_FAILED");
  });
});

/** Raw bytes to a listening app; resolves with everything it answered before closing. */
async function raw(port: number, chunks: string[], keepOpenMs = 0): Promise<string> {
  return await new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 5 s; got ${JSON.stringify(answer)}`));
    }, 5_000);
    socket.on("data", (d) => {
      answer += d.toString("utf8");
    });
    socket.on("close", () => {
      clearTimeout(deadline);
      resolve(answer);
    });
    socket.on("error", () => {});
    socket.on("connect", () => {
      for (const c of chunks) socket.write(c);
      if (keepOpenMs === 0) socket.end();
    });
  });
}

const problemOf = (answer: string) => {
  const [head, body] = answer.split("\r\n\r\n");
  return {
    status: Number(head?.split(" ")[1]),
    contentType: /content-type: ([^\r]+)/i.exec(head ?? "")?.[1],
    body: JSON.parse(body ?? "{}"),
  };
};

describe("what Node's HTTP parser refuses, as problem JSON", () => {
  const listen = async () => {
    const app = await build();
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    if (typeof address !== "object" || address === null) throw new Error("not listening");
    return address.port;
  };

  test("malformed HTTP is a 400 problem", async () => {
    const p = problemOf(await raw(await listen(), ["GET /keys/a HTTP/1.1\r\nHost x\r\n\r\n"]));
    expect(p).toMatchObject({
      status: 400,
      contentType: "application/problem+json",
      body: { code: "MALFORMED_REQUEST" },
    });
  });

  test("headers past Node's limit are a 431 problem", async () => {
    const big = `GET /keys/a HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`;
    const p = problemOf(await raw(await listen(), [big]));
    expect(p).toMatchObject({
      status: 431,
      contentType: "application/problem+json",
      body: { code: "HEADERS_TOO_LARGE" },
    });
  });

  test("a body that stops arriving is cut off with a 408 problem after requestTimeout", async () => {
    const start =
      'POST /keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"key":';
    const p = problemOf(await raw(await listen(), [start], 5_000));
    expect(p).toMatchObject({
      status: 408,
      contentType: "application/problem+json",
      body: { code: "REQUEST_TIMEOUT" },
    });
  });
});

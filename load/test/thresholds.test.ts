import { startTestServer, type TestServer } from "@orderflow/testkit/test-server.ts";
import { afterEach, describe, expect, it } from "vitest";
import { runLoad } from "../src/runner.ts";
import { evaluateThresholds, parseThresholds } from "../src/thresholds.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("thresholds", () => {
  it("are parsed in k6 syntax and judged as written", () => {
    const parsed = parseThresholds({
      http_req_duration: ["p(99)<2000", "p(99.9)<=3000", "avg<100", "med<50", "max<5000"],
      http_req_failed: ["rate<0.01"],
      dropped_iterations: ["count<10"],
      http_reqs: ["rate>=100"],
    });
    const values: Record<string, number> = {
      "http_req_duration/p/99": 1500,
      "http_req_duration/p/99.9": 3500,
      "http_req_duration/avg": 20,
      "http_req_duration/med": 10,
      "http_req_duration/max": 6000,
      "http_req_failed/rate": 0.02,
      "dropped_iterations/count": 9,
      "http_reqs/rate": 100,
    };
    const results = evaluateThresholds(
      parsed,
      (m, a, p) => values[[m, a, p].filter((x) => x !== undefined).join("/")],
    );
    expect(results.map((r) => [r.expression, r.ok])).toEqual([
      ["p(99)<2000", true],
      ["p(99.9)<=3000", false],
      ["avg<100", true],
      ["med<50", true],
      ["max<5000", false],
      ["rate<0.01", false],
      ["count<10", true],
      ["rate>=100", true],
    ]);
  });

  it("reject unknown metrics, aggregations and malformed expressions before any load starts", () => {
    expect(() => parseThresholds({ http_req_duratoin: ["p(99)<1"] })).toThrow(/unknown metric/);
    expect(() => parseThresholds({ http_req_failed: ["p(99)<1"] })).toThrow(/has no "p"/);
    expect(() => parseThresholds({ http_req_duration: ["p99 < 1"] })).toThrow(/not like/);
    const scenario = {
      executor: "constant-arrival-rate",
      rate: 1e6,
      duration: "1h",
      preAllocatedVUs: 10,
    } as const;
    expect(() =>
      runLoad("huge", { target: "http://127.0.0.1:1", scenario }, () => ({ method: "GET", path: "/" })),
    ).toThrow(/more than 50000000 iterations/);
    expect(() =>
      runLoad(
        "remote",
        { target: "http://example.com", scenario: { executor: "constant-vus", vus: 1, duration: "1s" } },
        () => ({
          method: "GET",
          path: "/",
        }),
      ),
    ).toThrow(/loopback/);
    expect(() =>
      runLoad(
        "bad",
        {
          target: "http://127.0.0.1:1",
          scenario: { executor: "constant-vus", vus: 1, duration: "1s" },
          thresholds: { nope: ["rate<1"] },
        },
        () => ({ method: "GET", path: "/" }),
      ),
    ).toThrow(/unknown metric/);
  });

  it("pass and fail a real run: passed is false when any threshold fails", async () => {
    // Every 10th request fails with a 500.
    server = await startTestServer((_req, n) => ({ status: n % 10 === 9 ? 500 : 200, body: {} }));
    const run = (thresholds: Record<string, string[]>) =>
      runLoad(
        "judged",
        {
          target: server?.url ?? "",
          scenario: { executor: "constant-arrival-rate", rate: 100, duration: "1s", preAllocatedVUs: 100 },
          thresholds,
        },
        () => ({ method: "GET", path: "/" }),
      );
    const passing = await run({
      http_req_duration: ["p(99)<2000"],
      http_req_failed: ["rate<0.2"],
      dropped_iterations: ["count<10"],
    });
    expect(passing.thresholds.every((t) => t.ok)).toBe(true);
    expect(passing.passed).toBe(true);

    const failing = await run({ http_req_duration: ["p(99)<2000"], http_req_failed: ["rate<0.01"] });
    expect(failing.passed).toBe(false);
    const failed = failing.thresholds.find((t) => t.metric === "http_req_failed");
    expect(failed?.ok).toBe(false);
    expect(failed?.actual).toBeCloseTo(0.1, 2);
    expect(failing.thresholds.find((t) => t.metric === "http_req_duration")?.ok).toBe(true);
  });
});

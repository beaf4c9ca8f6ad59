import { startTestServer, type TestServer } from "@orderflow/testkit/test-server.ts";
import { afterEach, describe, expect, it } from "vitest";
import { runLoad } from "../src/runner.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const get = () => ({ method: "GET", path: "/ping" });

describe("constant-arrival-rate", () => {
  it("offers the configured rate within 10% and counts every 2xx", async () => {
    server = await startTestServer();
    const result = await runLoad(
      "steady",
      {
        target: server.url,
        // A cap as large as the whole run: this test is about the schedule, server-stall tests the cap.
        scenario: { executor: "constant-arrival-rate", rate: 200, duration: "3s", preAllocatedVUs: 600 },
      },
      get,
    );
    const { iterations, status, offeredPerSecond, achievedPerSecond } = result.summary;
    expect(offeredPerSecond).toBeGreaterThan(180);
    expect(offeredPerSecond).toBeLessThan(220);
    expect(achievedPerSecond).toBeGreaterThan(180);
    expect(iterations.dropped).toBe(0);
    expect(status["2xx"]).toBe(iterations.started);
    expect(server.received).toBe(iterations.started);
    // Each whole second of the schedule offers the rate, not a burst then silence.
    for (const s of result.timeline.slice(0, 3)) {
      expect(s.offered).toBeGreaterThanOrEqual(180);
      expect(s.offered).toBeLessThanOrEqual(220);
    }
    expect(result.summary.latencyUs?.p50).toBeGreaterThan(0);
    expect(result.passed).toBe(true);
  });

  it("counts 4xx, 5xx and refused connections as failed requests", async () => {
    server = await startTestServer((_req, n) => ({
      status: n % 2 === 0 ? 200 : n % 4 === 1 ? 404 : 503,
      body: {},
    }));
    const result = await runLoad(
      "mixed",
      {
        target: server.url,
        scenario: { executor: "constant-arrival-rate", rate: 100, duration: "1s", preAllocatedVUs: 20 },
      },
      get,
    );
    const { status, httpReqFailedRate } = result.summary;
    expect(status["2xx"] + status["4xx"] + status["5xx"]).toBe(result.summary.iterations.completed);
    expect(status["4xx"]).toBeGreaterThan(0);
    expect(status["5xx"]).toBeGreaterThan(0);
    expect(httpReqFailedRate).toBeCloseTo(0.5, 1);

    const url = server.url;
    await server.close();
    server = undefined;
    const refused = await runLoad(
      "refused",
      {
        target: url,
        scenario: { executor: "constant-arrival-rate", rate: 50, duration: "500ms", preAllocatedVUs: 5 },
      },
      get,
    );
    expect(refused.summary.status.errors).toBe(refused.summary.iterations.completed);
    expect(refused.summary.httpReqFailedRate).toBe(1);
  });

  it("stops by itself when stop() is called and records marked events on the timeline", async () => {
    server = await startTestServer();
    const { startLoad } = await import("../src/runner.ts");
    const run = startLoad(
      "stopped",
      {
        target: server.url,
        scenario: { executor: "constant-arrival-rate", rate: 100, duration: "60s", preAllocatedVUs: 10 },
      },
      get,
    );
    const deadline = Date.now() + 5000;
    while (server.received < 50 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    run.markEvent("fault injected", { action: "nothing" });
    run.stop();
    const result = await run.result;
    expect(result.durationMs).toBeLessThan(5000);
    expect(result.events).toEqual([
      expect.objectContaining({ name: "fault injected", detail: { action: "nothing" } }),
    ]);
    expect(result.events[0]?.atMs).toBeGreaterThan(300);
  });
});

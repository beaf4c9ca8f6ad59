// A target of several base URLs (the replicas of `pnpm stack up --replicas N`): the load is spread over
// them, and an instance that is down takes fewer requests rather than failing the run.
import { startTestServer, type TestServer } from "@orderflow/testkit/test-server.ts";
import { afterEach, describe, expect, it } from "vitest";
import { runLoad } from "../src/runner.ts";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const get = () => ({ method: "GET", path: "/ping" });

describe("a target of several instances", () => {
  it("spreads the requests over every instance", async () => {
    servers.push(await startTestServer(), await startTestServer());
    const result = await runLoad(
      "two-instances",
      {
        target: servers.map((s) => s.url),
        scenario: { executor: "constant-arrival-rate", rate: 200, duration: "2s", preAllocatedVUs: 100 },
      },
      get,
    );
    const [a, b] = servers.map((s) => s.received) as [number, number];
    expect(result.summary.status["2xx"]).toBe(result.summary.iterations.started);
    expect(a + b).toBe(result.summary.iterations.started);
    // Round robin over two: neither takes less than a quarter.
    expect(Math.min(a, b)).toBeGreaterThan((a + b) / 4);
  });

  it("sends the run to the instances that answer when one is down", async () => {
    const up = await startTestServer();
    const down = await startTestServer();
    const downUrl = down.url;
    await down.close();
    servers.push(up);
    const result = await runLoad(
      "one-down",
      {
        target: [up.url, downUrl],
        scenario: { executor: "constant-arrival-rate", rate: 200, duration: "2s", preAllocatedVUs: 100 },
      },
      get,
    );
    const { status, iterations } = result.summary;
    expect(up.received).toBe(status["2xx"]);
    // The refused connections lower that instance's weight: most requests reach the live one.
    expect(status["2xx"]).toBeGreaterThan(iterations.started * 0.75);
  });

  it("refuses a target list with an address off loopback", () => {
    expect(() =>
      runLoad(
        "off-loopback",
        {
          target: ["http://127.0.0.1:1", "http://10.0.0.1:80"],
          scenario: { executor: "constant-arrival-rate", rate: 1, duration: "1s", preAllocatedVUs: 1 },
        },
        get,
      ),
    ).toThrow(/loopback/);
  });
});

import { startTestServer, type TestServer } from "@orderflow/testkit/test-server.ts";
import { afterEach, describe, expect, it } from "vitest";
import { runLoad } from "../src/runner.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const RATE = 100;
const STALL_MS = 2000;

/** A server that stalls every answer for 2 s once it has received its 100th request (~1 s in). */
async function stallingServer(): Promise<TestServer> {
  let s: TestServer | undefined;
  s = await startTestServer((_req, n) => {
    if (n === RATE) s?.stallFor(STALL_MS);
    return { status: 200, body: {} };
  });
  return s;
}

describe("a 2 s server stall", () => {
  it("shows in the latency from the intended start instead of lowering the offered rate", async () => {
    server = await stallingServer();
    const result = await runLoad(
      "stall",
      {
        target: server.url,
        // The cap covers the whole run, so nothing is dropped and every stalled request is measured.
        scenario: { executor: "constant-arrival-rate", rate: RATE, duration: "5s", preAllocatedVUs: 500 },
      },
      () => ({ method: "GET", path: "/" }),
    );
    const { summary, timeline } = result;
    console.log(
      "stall, no cap hit:",
      JSON.stringify(summary),
      timeline.map((t) => [t.offered, t.completed, t.latencyUs?.p99]),
    );
    // Open model: the stall does not slow the schedule down.
    expect(summary.offeredPerSecond).toBeGreaterThan(RATE * 0.9);
    expect(summary.offeredPerSecond).toBeLessThan(RATE * 1.1);
    expect(summary.iterations.dropped).toBe(0);
    // Requests meant to start at the beginning of the stall waited for all of it.
    expect(summary.latencyUs?.max).toBeGreaterThanOrEqual(1900_000);
    expect(summary.latencyUs?.p99).toBeGreaterThanOrEqual(1800_000);
    // The stall is attributed to the seconds it happened in (second 1), not to when answers came back.
    expect(timeline[1]?.latencyUs?.p99).toBeGreaterThanOrEqual(1800_000);
    expect(timeline[4]?.latencyUs?.p99).toBeLessThan(1_000_000);
  });

  it("turns into dropped_iterations at the in-flight cap instead of a connection storm", async () => {
    server = await stallingServer();
    const cap = 20;
    const result = await runLoad(
      "stall-capped",
      {
        target: server.url,
        scenario: { executor: "constant-arrival-rate", rate: RATE, duration: "5s", preAllocatedVUs: cap },
      },
      () => ({ method: "GET", path: "/" }),
    );
    const { summary } = result;
    console.log(
      "stall, cap 20:",
      JSON.stringify(summary.iterations),
      "server connections",
      server.connections,
    );
    expect(summary.offeredPerSecond).toBeGreaterThan(RATE * 0.9);
    // About rate x stall - cap iterations were due while 20 were stuck (more on a busy machine).
    expect(summary.iterations.dropped).toBeGreaterThan(RATE * (STALL_MS / 1000) - cap - 40);
    expect(summary.iterations.dropped).toBeLessThan(RATE * (STALL_MS / 1000) + 100);
    expect(summary.iterations.started + summary.iterations.dropped).toBe(summary.iterations.offered);
    expect(server.connections).toBeLessThanOrEqual(cap);
    expect(server.maxConcurrent).toBeLessThanOrEqual(cap);
    expect(summary.latencyUs?.p99).toBeGreaterThanOrEqual(1500_000);
  });

  it("does not keep the run alive: requests still stuck after gracefulStop are interrupted", async () => {
    server = await startTestServer();
    server.stallFor(60_000);
    const started = Date.now();
    const result = await runLoad(
      "stuck",
      {
        target: server.url,
        scenario: { executor: "constant-arrival-rate", rate: 20, duration: "1s", preAllocatedVUs: 50 },
        gracefulStop: "500ms",
      },
      () => ({ method: "GET", path: "/" }),
    );
    expect(Date.now() - started).toBeLessThan(4000);
    const { iterations, status } = result.summary;
    expect(iterations.started).toBe(20);
    expect(iterations.interrupted).toBe(20);
    expect(status.errors).toBe(20);
    expect(result.passed).toBe(true);
  });
});

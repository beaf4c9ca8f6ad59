import { startTestServer, type TestServer } from "@orderflow/testkit/test-server.ts";
import { afterEach, describe, expect, it } from "vitest";
import { runLoad } from "../src/runner.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("constant-vus", () => {
  it("keeps exactly its VUs busy for the duration, each waiting for its previous answer", async () => {
    server = await startTestServer();
    const result = await runLoad(
      "vus",
      { target: server.url, scenario: { executor: "constant-vus", vus: 4, duration: "1500ms" } },
      () => ({ method: "GET", path: "/" }),
    );
    expect(server.maxConcurrent).toBeLessThanOrEqual(4);
    expect(server.connections).toBeLessThanOrEqual(4);
    // Each VU looped (several iterations each); how many depends on the machine, which a test must not assert.
    expect(result.summary.iterations.completed).toBeGreaterThan(4 * 3);
    expect(result.summary.iterations.dropped).toBe(0);
    expect(result.summary.status["2xx"]).toBe(result.summary.iterations.completed);
    expect(result.durationMs).toBeLessThan(3000);
  });
});

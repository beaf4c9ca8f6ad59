import { startLoad } from "@orderflow/load/runner.ts";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { startTestServer, type TestServer } from "@orderflow/testkit/test-server.ts";
import { afterEach, describe, expect, it } from "vitest";
import { type BlackholeProxy, startBlackholeProxy } from "../src/blackhole-proxy.ts";

let server: TestServer | undefined;
let proxy: BlackholeProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await server?.close();
  proxy = undefined;
  server = undefined;
});

describe("load through a blackholed connection", () => {
  it("times requests out during the blackhole, marks it on the timeline, and recovers after heal", async () => {
    server = await startTestServer();
    const url = new URL(server.url);
    proxy = await startBlackholeProxy({ targetHost: url.hostname, targetPort: Number(url.port) });
    const run = startLoad(
      "blackhole",
      {
        target: `http://127.0.0.1:${proxy.port}`,
        scenario: { executor: "constant-arrival-rate", rate: 50, duration: "4s", preAllocatedVUs: 100 },
        // Short, so requests caught in the blackhole fail within the run instead of at gracefulStop.
        timeout: "700ms",
      },
      () => ({ method: "GET", path: "/" }),
    );
    await eventually("traffic through the proxy", () => (server?.received ?? 0) >= 50);
    proxy.blackhole();
    run.markEvent("fault injected", { action: "blackhole" });
    const receivedAtFault = server.received;
    await eventually("requests to pile up behind the blackhole", () => run.inFlight >= 20);
    // Nothing got through while it was cut.
    expect(server.received).toBe(receivedAtFault);
    proxy.heal();
    run.markEvent("fault healed");
    const result = await run.result;

    const { status } = result.summary;
    expect(status.errors).toBeGreaterThan(0);
    expect(status["2xx"]).toBeGreaterThan(50);
    // Connections the timeouts closed are replaced, and the last second is healthy again.
    const last = result.timeline[3];
    expect(last?.status["2xx"]).toBeGreaterThan(40);
    expect(result.events.map((e) => e.name)).toEqual(["fault injected", "fault healed"]);
  });
});

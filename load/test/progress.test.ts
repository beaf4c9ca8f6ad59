import { eventually } from "@orderflow/testkit/eventually.ts";
import { startTestServer, type TestServer } from "@orderflow/testkit/test-server.ts";
import { afterEach, describe, expect, it } from "vitest";
import { formatProgress } from "../src/progress.ts";
import { type Progress, startLoad } from "../src/runner.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("progress", () => {
  it("reports each second, and a stall as the age of the oldest request in flight", async () => {
    server = await startTestServer();
    const seen: Progress[] = [];
    const run = startLoad(
      "progress",
      {
        target: server.url,
        scenario: { executor: "constant-arrival-rate", rate: 50, duration: "4s", preAllocatedVUs: 200 },
      },
      () => ({ method: "GET", path: "/" }),
      { onProgress: (p) => seen.push(p) },
    );
    await eventually("the first progress report", () => seen.length >= 1);
    server.stallFor(2500);
    await eventually(
      "a progress report during the stall",
      () => (seen.at(-1)?.oldestInFlightMs ?? 0) >= 1000,
      { timeoutMs: 4000 },
    );
    const during = seen.at(-1) as Progress;
    expect(during.inFlight).toBeGreaterThan(30);
    expect(formatProgress(during)).toMatch(/in-flight\s+\d+ .*oldest in flight \d\.\ds/);
    await run.result;
    expect(seen[0]?.offered).toBe(50);
    expect(formatProgress(seen[0] as Progress)).toMatch(/^\[\s+1s\]\s+offered\s+50\/s/);
  });
});

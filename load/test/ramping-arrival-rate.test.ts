import { startTestServer, type TestServer } from "@orderflow/testkit/test-server.ts";
import { afterEach, describe, expect, it } from "vitest";
import { runLoad } from "../src/runner.ts";
import { intendedOffsets, rampingSegments } from "../src/schedule.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function perSecond(offsets: Iterable<number>): number[] {
  const counts: number[] = [];
  for (const ms of offsets) {
    const s = Math.floor(ms / 1000);
    counts[s] = (counts[s] ?? 0) + 1;
  }
  return Array.from(counts, (c) => c ?? 0);
}

describe("ramping-arrival-rate", () => {
  it("schedules linear ramps between stage targets, as k6 does", () => {
    // 0 -> 100/s over 2 s, hold 100/s for 1 s, down to 0 over 2 s.
    const segments = rampingSegments(0, [
      { targetPerMs: 0.1, durationMs: 2000 },
      { targetPerMs: 0.1, durationMs: 1000 },
      { targetPerMs: 0, durationMs: 2000 },
    ]);
    const counts = perSecond(intendedOffsets(segments));
    // Integral of the rate per second: 25, 75, 100, 75, 25.
    expect(counts).toEqual([25, 75, 100, 75, 25]);
  });

  it("follows its stages against a real server", async () => {
    server = await startTestServer();
    const result = await runLoad(
      "ramp",
      {
        target: server.url,
        scenario: {
          executor: "ramping-arrival-rate",
          startRate: 50,
          stages: [
            { target: 250, duration: "2s" },
            { target: 250, duration: "1s" },
            { target: 0, duration: "1s" },
          ],
          preAllocatedVUs: 700,
        },
      },
      () => ({ method: "GET", path: "/" }),
    );
    const offered = result.timeline.slice(0, 4).map((s) => s.offered);
    const expected = [100, 200, 250, 125];
    console.log(
      "ramp offered per second",
      offered,
      "completed",
      result.timeline.map((s) => s.completed),
    );
    offered.forEach((n, i) => {
      expect(n).toBeGreaterThanOrEqual((expected[i] ?? 0) * 0.9);
      expect(n).toBeLessThanOrEqual((expected[i] ?? 0) * 1.1);
    });
    // The cap exceeds the whole run, so nothing may be dropped even on a busy machine.
    expect(result.summary.iterations.dropped).toBe(0);
    expect(result.summary.status["2xx"]).toBe(result.summary.iterations.started);
  });
});

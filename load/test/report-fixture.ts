// A real short run with a marked fault (a 2 s server stall), plus the series and verdict an audit
// would add: the input the report tests render.

import { eventually } from "@orderflow/testkit/eventually.ts";
import { startTestServer } from "@orderflow/testkit/test-server.ts";
import type { AuditVerdict, ExtraSeries } from "../src/report/derive.ts";
import type { ReportInput } from "../src/report/render-report.ts";
import { startLoad } from "../src/runner.ts";

export async function runWithFault(name = "stall-fault"): Promise<ReportInput> {
  const server = await startTestServer();
  try {
    const run = startLoad(
      name,
      {
        target: server.url,
        scenario: { executor: "constant-arrival-rate", rate: 100, duration: "6s", preAllocatedVUs: 60 },
        thresholds: {
          http_req_duration: ["p(99)<1000"],
          http_req_failed: ["rate<0.01"],
          dropped_iterations: ["count<10"],
        },
      },
      () => ({ method: "GET", path: "/" }),
    );
    await eventually("the load to reach 150 requests", () => server.received >= 150, { timeoutMs: 10_000 });
    server.stallFor(2000);
    run.markEvent("fault injected", { action: "server stalls 2 s" });
    await eventually("requests to pile up in the stall", () => run.inFlight >= 20, { timeoutMs: 10_000 });
    await eventually("the stall to end and answers to flow", () => run.inFlight < 5, { timeoutMs: 10_000 });
    run.markEvent("fault healed");
    const result = await run.result;
    return {
      run: result,
      series: fakeSeries(result.events),
      audit: fakeVerdict(),
    };
  } finally {
    await server.close();
  }
}

/** An outbox backlog that grows during the fault and drains 1.5 s after it heals; a queue alongside. */
function fakeSeries(events: ReportInput["run"]["events"]): ExtraSeries[] {
  const fault = events.find((e) => e.name === "fault injected")?.atMs ?? 1500;
  const healed = events.find((e) => e.name === "fault healed")?.atMs ?? 3500;
  const backlog: ExtraSeries = { name: "outbox pending", unit: "rows", points: [] };
  const queue: ExtraSeries = { name: "inventory.order-created depth", unit: "messages", points: [] };
  for (let t = 0; t <= 7000; t += 250) {
    // Drains over exactly 1.5 s whatever the peak, so the report's recovery is 1.5-1.75 s on this grid.
    const peak = ((healed - fault) / 1000) * 100;
    const growing = t >= fault && t < healed ? ((t - fault) / 1000) * 100 : 0;
    const draining = t >= healed ? Math.max(0, peak * (1 - (t - healed) / 1500)) : 0;
    backlog.points.push({ atMs: t, value: Math.round(growing + draining) });
    queue.points.push({ atMs: t, value: Math.round((growing + draining) / 3) });
  }
  return [backlog, queue];
}

function fakeVerdict(): AuditVerdict {
  return {
    passed: true,
    duplicateRate: 0.0042,
    damage: { "rows failed (9)": 453, "attempts per row": 3.71 },
    orders: { accepted: 600, lost: 0, duplicatedEffects: 0, unexpectedEffects: 0 },
    outbox: { stuckPending: 0, stuckSent: 0 },
    absorbed: { duplicateDeliveries: 3, redeliveries: 5, retries: 2, reconciliationRepairs: 0 },
    violations: [],
  };
}

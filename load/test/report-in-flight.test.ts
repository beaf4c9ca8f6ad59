// The in-flight figures measured at each fault action's start: the report's table, and the summary
// tables' cell, including a part that did not answer.
import { describe, expect, it } from "vitest";
import { type InFlightSample, inFlightCell } from "../src/report/in-flight.ts";
import { renderReport } from "../src/report/render-report.ts";
import { renderSummaryMarkdown } from "../src/report/summary-table.ts";
import { runWithFault } from "./report-fixture.ts";

const sample = (over: Partial<InFlightSample> = {}): InFlightSample => ({
  atMs: 5_010,
  action: "kill -9 rabbit-2@localhost",
  queues: { "inventory.order-events": 30, "points.order-events": 12, "order.saga-replies": 5 },
  outboxPending: { order: 7, inventory: 3, points: 1 },
  ordersPending: 41,
  messages: 58,
  complete: true,
  tookMs: 35,
  ...over,
});

describe("in flight when each fault hit", () => {
  it("lists each action with its messages, orders not final and the parts they add up from", async () => {
    const input = await runWithFault("in-flight");
    const html = renderReport({
      ...input,
      inFlight: [
        sample(),
        sample({ atMs: 8_000, action: "kill -9 points", messages: 90, ordersPending: 60 }),
      ],
    });
    const table = html.slice(
      html.indexOf('<table id="in-flight"'),
      html.indexOf("</table>", html.indexOf('id="in-flight"')),
    );
    expect(table).toContain("kill -9 rabbit-2@localhost");
    expect(table).toContain("kill -9 points");
    expect(table).toContain('<th class="num">inventory.order-events</th>');
    expect(table).toContain('<th class="num">outbox order</th>');
    // 5.01 s, 58 messages = 47 in queues + 11 in outboxes, 41 orders not final
    expect(table).toMatch(
      /5\.01 s<\/td><td>kill -9 rabbit-2@localhost<\/td><td class="num">58<\/td><td class="num">41<\/td><td class="num">47<\/td><td class="num">11<\/td>/,
    );

    const md = renderSummaryMarkdown([{ ...input, inFlight: [sample()] }]);
    const [head, , row] = md.split("\n");
    const col = head?.split(" | ").findIndex((c) => c.includes("in flight at fault")) ?? -1;
    expect(col).toBeGreaterThan(0);
    expect(row?.split(" | ")[col]).toBe("58 msgs, 41 orders");
  });

  it("says when nothing was measured, and marks a part that did not answer", async () => {
    const input = await runWithFault("in-flight-missing");
    expect(renderReport(input)).toContain("In-flight figures were not measured for this run.");
    expect(renderReport({ ...input, inFlight: [] })).toContain("No fault action started during this run.");
    const partial = sample({ queues: null, messages: 11, complete: false });
    const html = renderReport({ ...input, inFlight: [partial] });
    expect(html).toMatch(/<td class="num">11\?<\/td><td class="num">41<\/td><td class="num">\?<\/td>/);
    expect(inFlightCell([partial])).toBe("11? msgs, 41 orders");
  });

  it("shows the first action and the largest figure when a fault acts several times", () => {
    const kills = [sample({ messages: 20 }), sample({ messages: 75 }), sample({ messages: 40 })];
    expect(inFlightCell(kills)).toBe("20 msgs, 41 orders (max 75 msgs over 3 actions)");
    expect(inFlightCell(undefined)).toBe("—");
    expect(inFlightCell([])).toBe("—");
  });
});

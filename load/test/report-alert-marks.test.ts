// The report marks when each alert reached Alertmanager and when it resolved, on every chart and in
// the events and alerts tables, rendered in headless Chromium.
import fs from "node:fs";
import path from "node:path";
import type { WatchedAlert } from "@orderflow/lab/run/alerts.ts";
import { ensureChromium, launchChromium } from "@orderflow/testkit/chromium.ts";
import { readTestkitEnv } from "@orderflow/testkit/env.ts";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLoadEnv } from "../src/env.ts";
import type { ReportInput } from "../src/report/render-report.ts";
import { renderSummaryMarkdown } from "../src/report/summary-table.ts";
import { writeReport } from "../src/report/write-report.ts";
import { runWithFault } from "./report-fixture.ts";

const env = readTestkitEnv();
const outDir = path.join(readLoadEnv().reportsDir, "report-alert-test");
let browser: Browser | undefined;
let input: ReportInput;

function alert(
  name: string,
  node: string,
  startsAtMs: number,
  firstSeenMs: number,
  resolvedMs: number | null,
) {
  return {
    name,
    labels: { node, severity: "critical" },
    fingerprint: `${name}${node}`,
    startsAt: new Date(Date.now() + startsAtMs).toISOString(),
    startsAtMs,
    firstSeenMs,
    resolvedMs,
    annotations: {},
  } satisfies WatchedAlert;
}

beforeAll(async () => {
  ensureChromium(env.chromiumPath, env.isRoot);
  fs.rmSync(outDir, { recursive: true, force: true });
  const run = await runWithFault("alert-marks");
  const injected = run.run.events.find((e) => e.name === "fault injected")?.atMs ?? 1500;
  const healed = run.run.events.find((e) => e.name === "fault healed")?.atMs ?? 3500;
  input = {
    ...run,
    alerts: [
      // Two nodes' alerts arriving in the same poll share one mark; the second resolves during the settle.
      alert("BrokerNodeDown", "rabbit-1", injected + 200, injected + 500, healed + 1_000),
      alert("BrokerNodeDown", "rabbit-2", injected + 200, injected + 500, 9_500),
      alert("OutboxBacklogGrowing", "-", injected + 800, injected + 1_200, null),
    ],
  };
  browser = await launchChromium(env.chromiumPath);
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe("the HTML report with alerts", () => {
  it("draws each alert's firing and resolution on every chart and lists them in the tables", async () => {
    const file = writeReport(path.join(outDir, "alert-marks.html"), input);
    if (!browser) throw new Error("no browser");
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`file://${file}`);

    const charts = await page.$$eval("svg.chart-svg", (svgs) =>
      svgs.map((svg) => ({
        id: svg.id,
        fired: [...svg.querySelectorAll("g.alert-marker.alert-fired")].map((g) =>
          g.getAttribute("data-label"),
        ),
        resolved: [...svg.querySelectorAll("g.alert-marker.alert-resolved")].map((g) =>
          g.getAttribute("data-label"),
        ),
        faults: svg.querySelectorAll("g.fault-marker").length,
        // The marks' labels stay inside the chart: none is cut off at the right edge.
        labelsInside: [...svg.querySelectorAll("g.alert-marker text")].every((t) => {
          const b = t.getBoundingClientRect();
          const s = svg.getBoundingClientRect();
          return b.left >= s.left && b.right <= s.right + 1;
        }),
      })),
    );
    expect(charts.length).toBeGreaterThanOrEqual(5);
    for (const c of charts) {
      expect(c.fired, c.id).toEqual([
        "BrokerNodeDown (rabbit-1, rabbit-2) fired",
        "OutboxBacklogGrowing (-) fired",
      ]);
      expect(c.resolved, c.id).toEqual([
        "BrokerNodeDown (rabbit-1) resolved",
        "BrokerNodeDown (rabbit-2) resolved",
      ]);
      expect(c.faults, c.id).toBe(2);
      expect(c.labelsInside, c.id).toBe(true);
    }

    const alertRows = await page.$$eval("#alerts tbody tr", (trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
    );
    expect(alertRows.map((r) => [r[0], r[1], r[4]])).toEqual([
      ["BrokerNodeDown", "node=rabbit-1", expect.stringMatching(/^\d+\.\d s$/)],
      ["BrokerNodeDown", "node=rabbit-2", "9.5 s"],
      ["OutboxBacklogGrowing", "node=-", "still active"],
    ]);
    const events = await page.$$eval("#events tbody tr", (trs) =>
      trs.map((tr) => `${tr.className}|${tr.querySelectorAll("td")[1]?.textContent}`),
    );
    expect(events).toEqual([
      "|fault injected",
      "alert|alert fired: BrokerNodeDown",
      "alert|alert fired: BrokerNodeDown",
      "alert|alert fired: OutboxBacklogGrowing",
      "|fault healed",
      "alert|alert resolved: BrokerNodeDown",
      "alert|alert resolved: BrokerNodeDown",
    ]);
    // The resolution at 9.5 s lies after the 6 s load: the axis runs on to show it.
    const lastTick = await page.$$eval("#chart-rate text[text-anchor=middle]", (ts) =>
      ts.map((t) => Number(t.textContent)).filter(Number.isFinite),
    );
    expect(Math.max(...lastTick)).toBeGreaterThanOrEqual(9);

    await page.screenshot({ path: path.join(outDir, "alert-marks.png"), fullPage: true });
    await page.close();
  });

  it("counts the alerts fired per run in the summary table", () => {
    const md = renderSummaryMarkdown([input, { ...input, alerts: [] }]);
    const rows = md.split("\n").filter((l) => l.startsWith("| alert-marks"));
    expect(rows[0]).toContain("| BrokerNodeDown ×2, OutboxBacklogGrowing |");
    expect(rows[1]).toContain("| — |");
  });
});

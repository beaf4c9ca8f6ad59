import fs from "node:fs";
import path from "node:path";
import { ensureChromium, launchChromium } from "@orderflow/testkit/chromium.ts";
import { readTestkitEnv } from "@orderflow/testkit/env.ts";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLoadEnv } from "../src/env.ts";
import type { ReportInput } from "../src/report/render-report.ts";
import { renderSummaryMarkdown } from "../src/report/summary-table.ts";
import { writeJson, writeReport, writeSummary } from "../src/report/write-report.ts";
import { runWithFault } from "./report-fixture.ts";

// SVGGraphicsElement's one method used here; the project's tsconfig has no DOM lib.
type Drawable = { getBBox(): { width: number; height: number } };

const env = readTestkitEnv();
const outDir = path.join(readLoadEnv().reportsDir, "report-test");
let browser: Browser | undefined;
let input: ReportInput;

beforeAll(async () => {
  ensureChromium(env.chromiumPath, env.isRoot);
  fs.rmSync(outDir, { recursive: true, force: true });
  input = await runWithFault();
  browser = await launchChromium(env.chromiumPath);
});
afterAll(async () => {
  await browser?.close();
});

async function open(file: string) {
  if (!browser) throw new Error("no browser");
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  // Anything fetched from outside the file itself means the report is not self-contained.
  const fetched: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) fetched.push(r.url());
  });
  await page.goto(`file://${file}`);
  return { page, fetched };
}

describe("the HTML report", () => {
  it("renders every chart with its lines and fault markers in headless Chromium, fetching nothing", async () => {
    writeJson(path.join(outDir, "stall-fault.json"), input.run);
    const file = writeReport(path.join(outDir, "stall-fault.html"), input);
    const { page, fetched } = await open(file);

    const charts = await page.$$eval("svg.chart-svg", (svgs) =>
      svgs.map((svg) => {
        const box = svg.getBoundingClientRect();
        const lines = [...svg.querySelectorAll("path.series")].map((p) =>
          (p as unknown as Drawable).getBBox(),
        );
        return {
          id: svg.id,
          width: box.width,
          height: box.height,
          lines: lines.length,
          drawnLines: lines.filter((b) => b.width > 0).length,
          markers: [...svg.querySelectorAll("g.fault-marker")].map((g) => g.getAttribute("data-label")),
          markerHeights: [...svg.querySelectorAll("g.fault-marker line")].map(
            (l) => (l as unknown as Drawable).getBBox().height,
          ),
          windows: svg.querySelectorAll("rect.fault-window").length,
        };
      }),
    );
    expect(charts.map((c) => c.id)).toEqual([
      "chart-rate",
      "chart-latency",
      "chart-availability",
      "chart-status",
      "chart-series-0",
    ]);
    for (const c of charts) {
      expect(c.width, c.id).toBeGreaterThan(600);
      expect(c.height, c.id).toBeGreaterThan(150);
      expect(c.lines, c.id).toBeGreaterThan(0);
      expect(c.drawnLines, c.id).toBe(c.lines);
      expect(c.markers, c.id).toEqual(["fault injected", "fault healed"]);
      for (const h of c.markerHeights) expect(h).toBeGreaterThan(100);
      expect(c.windows, c.id).toBe(1);
    }

    const thresholdRows = await page.$$eval("#thresholds tbody tr", (rows) =>
      rows.map((r) => r.textContent ?? ""),
    );
    expect(thresholdRows).toHaveLength(3);
    expect(thresholdRows.find((r) => r.includes("dropped_iterations"))).toContain("FAIL");
    expect(await page.textContent("#audit")).toContain('"duplicateRate": 0.0042');
    // A pitfall's damage in its own terms, one row per figure.
    const damage = await page.$$eval("#damage tr", (trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
    );
    expect(damage).toEqual([
      ["rows failed (9)", "453"],
      ["attempts per row", "3.71"],
    ]);
    const cards = (await page.textContent("#cards")) ?? "";
    expect(cards).toContain("0.420%");
    expect(cards).toMatch(/recovery \(healed → backlog drained\)\s*1\.\d\d s/);
    expect(fetched).toEqual([]);
    // The machine the run recorded is shown under the title.
    expect(await page.textContent(".sub")).toMatch(/\d+ cores .* Node v\d+/);

    await page.screenshot({ path: path.join(outDir, "report.png"), fullPage: true });
    // One chart at full size, to look at the markers and labels closely.
    await page.locator("#chart-latency").screenshot({ path: path.join(outDir, "latency-chart.png") });
    expect(fs.statSync(path.join(outDir, "report.png")).size).toBeGreaterThan(50_000);
    await page.close();
  });

  it("summarises several runs in one table, in HTML and Markdown", async () => {
    const healthy: ReportInput = {
      run: { ...input.run, name: "steady", events: [], passed: true },
      audit: { passed: true, duplicateRate: 0 },
    };
    const failing: ReportInput = { ...input, audit: { ...input.audit, passed: false } };
    const runs = [healthy, input, failing];
    const { html, markdown } = writeSummary(outDir, runs, {
      machine: "2 shared cores",
      links: ["steady.html", "stall-fault.html", undefined],
    });
    const md = fs.readFileSync(markdown, "utf8");
    expect(md).toBe(renderSummaryMarkdown(runs, "2 shared cores"));
    expect(md.split("\n").filter((l) => l.startsWith("| "))).toHaveLength(2 + runs.length);
    expect(md).toContain("| steady | pass | pass |");

    const { page, fetched } = await open(html);
    const rows = await page.$$eval("#summary tbody tr", (trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
    );
    expect(rows).toHaveLength(3);
    expect(rows[0]?.slice(0, 3)).toEqual(["steady", "pass", "pass"]);
    expect(rows[2]?.[2]).toBe("FAIL");
    expect(rows.map((r) => r.at(-2))).toEqual([
      "—",
      "rows failed (9) 453, attempts per row 3.71",
      "rows failed (9) 453, attempts per row 3.71",
    ]);
    // No run here had a broker probe (the partitions' column).
    expect(rows.map((r) => r.at(-1))).toEqual(["—", "—", "—"]);
    expect(await page.textContent("h1")).toContain("FAILURES");
    expect(fetched).toEqual([]);
    await page.screenshot({ path: path.join(outDir, "summary.png"), fullPage: true });
    await page.close();
  });

  it("setup says how to install Chromium when it is missing and cannot install it itself", () => {
    expect(() => ensureChromium("/nonexistent/chromium", false)).toThrow(/apt-get install -y chromium/);
  });
});

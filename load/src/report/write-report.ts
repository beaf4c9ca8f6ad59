// Writes a run's files side by side: NAME.json (the run), NAME.html (the report).
import fs from "node:fs";
import path from "node:path";
import { type ReportInput, renderReport } from "./render-report.ts";
import { renderSummaryHtml, renderSummaryMarkdown } from "./summary-table.ts";

export function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

export function writeReport(file: string, input: ReportInput): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, renderReport(input));
  return file;
}

/** Writes summary.html and summary.md into `dir`; links each scenario to its report when given. */
export function writeSummary(
  dir: string,
  runs: readonly ReportInput[],
  o: { machine?: string; links?: Array<string | undefined> } = {},
): { html: string; markdown: string } {
  fs.mkdirSync(dir, { recursive: true });
  const html = path.join(dir, "summary.html");
  const markdown = path.join(dir, "summary.md");
  fs.writeFileSync(html, renderSummaryHtml(runs, o));
  fs.writeFileSync(markdown, renderSummaryMarkdown(runs, o.machine));
  return { html, markdown };
}

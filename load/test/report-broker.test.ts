// A broker probe's counts (the partition scenarios') in the report and in the summary table.
import { expect, test } from "vitest";
import { renderReport } from "../src/report/render-report.ts";
import { renderSummaryMarkdown } from "../src/report/summary-table.ts";
import { runWithFault } from "./report-fixture.ts";

test("the report lists the probe's counts under 'At the broker' and the summary gives its verdict in one cell", async () => {
  const input = await runWithFault("partition-like");
  const broker = { confirmed: 1_300, lost: 0, duplicated: 2, unexpected: 0, unconfirmed: 3, recovered: 3 };
  const withProbe = { ...input, audit: { ...input.audit, broker } };

  const html = renderReport(withProbe);
  const table = /<table id="broker"><tbody>(.*?)<\/tbody><\/table>/.exec(html)?.[1] ?? "";
  expect(html).toContain("At the broker");
  expect(table).toContain('<td>duplicated</td><td class="num">2</td>');
  expect(table).toContain('<td>confirmed</td><td class="num">1,300</td>');

  const md = renderSummaryMarkdown([withProbe, input]);
  const rows = md.split("\n").filter((l) => l.startsWith("| partition-like"));
  expect(rows[0]).toContain("| lost 0, duplicated 2, unexpected 0, recovered 3 |");
  expect(rows[1]?.endsWith("| — |")).toBe(true);
  expect(renderReport(input)).not.toContain('id="broker"');
}, 60_000);

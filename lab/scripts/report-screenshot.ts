// A full-page PNG of one HTML report, taken in headless Chromium (Debian's, as the report tests use),
// for the README: the latest broker-outage report, with its fault and alert marks, by default.
// tsx lab/scripts/report-screenshot.ts [report.html] [out.png]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseCli } from "@orderflow/config";
import { readLoadEnv } from "@orderflow/load/env.ts";
import type { ReportInput } from "@orderflow/load/report/render-report.ts";
import { writeReport } from "@orderflow/load/report/write-report.ts";
import { launchChromium } from "@orderflow/testkit/chromium.ts";
import { readTestkitEnv } from "@orderflow/testkit/env.ts";
import { faultReportsDir } from "../src/run/lab.ts";

const USAGE =
  "usage: tsx lab/scripts/report-screenshot.ts [report.html] [out.png]\n" +
  "  (default: the latest reports/fault/broker-outage run, rendered again -> docs/img/broker-outage-report.png)";
const { positionals, fail } = parseCli(
  { usage: USAGE, options: {}, positionals: { max: 2 } },
  process.argv.slice(2),
);
const env = readLoadEnv();
const repoRoot = path.resolve(import.meta.dirname, "../..");

function latestReport(): string {
  const dir = path.join(faultReportsDir(env.reportsDir), "broker-outage");
  const latest = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .sort()
        .at(-1)
    : undefined;
  if (!latest) fail(`no broker-outage report in ${dir}: run \`pnpm fault broker-outage\` first`);
  // Rendered again from the run's JSON, so the picture shows the current renderer.
  const saved = JSON.parse(fs.readFileSync(path.join(dir, latest as string), "utf8")) as ReportInput;
  return writeReport(path.join(os.tmpdir(), "broker-outage-report.html"), {
    run: saved.run,
    ...(saved.series ? { series: saved.series } : {}),
    ...(saved.audit ? { audit: saved.audit } : {}),
    ...(saved.alerts ? { alerts: saved.alerts } : {}),
  });
}

const report = path.resolve(positionals[0] ?? latestReport());
const out = path.resolve(positionals[1] ?? path.join(repoRoot, "docs/img/broker-outage-report.png"));
const browser = await launchChromium(readTestkitEnv().chromiumPath);
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.goto(`file://${report}`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  // From the header down to the alerts table: the long audit JSON below it says nothing in a picture.
  const end = await page
    .locator("h2", { hasText: /^(Damage|Audit verdict)/ })
    .first()
    .boundingBox();
  await page.screenshot({
    path: out,
    fullPage: true,
    ...(end ? { clip: { x: 0, y: 0, width: 1200, height: Math.ceil(end.y) } } : {}),
  });
  process.stdout.write(`${path.relative(process.cwd(), out)} <- ${path.relative(process.cwd(), report)}\n`);
} finally {
  await browser.close();
}

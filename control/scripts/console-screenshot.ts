// A full-page PNG of the control service's console once its charts hold a minute of flow, taken in headless
// Chromium (Debian's, as the console tests use): the picture of the console served by a running stack,
// e.g. the compose stack's while `pnpm fault all --target compose` runs.
// tsx control/scripts/console-screenshot.ts [console URL] [out.png]
import fs from "node:fs";
import path from "node:path";
import { parseCli } from "@orderflow/config";
import { launchChromium } from "@orderflow/testkit/chromium.ts";
import { readTestkitEnv } from "@orderflow/testkit/env.ts";

const USAGE =
  "usage: tsx control/scripts/console-screenshot.ts [console URL] [out.png]\n" +
  "  (default: http://127.0.0.1:17080 -> docs/img/console-compose.png)";
const { positionals } = parseCli(
  { usage: USAGE, options: {}, positionals: { max: 2 } },
  process.argv.slice(2),
);
const repoRoot = path.resolve(import.meta.dirname, "../..");
const url = positionals[0] ?? "http://127.0.0.1:17080";
const out = path.resolve(positionals[1] ?? path.join(repoRoot, "docs/img/console-compose.png"));

const browser = await launchChromium(readTestkitEnv().chromiumPath);
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.waitForSelector('#connection[data-state="live"]', { timeout: 30_000 });
  // A minute of flow on the charts before the picture (bounded: two minutes).
  const deadline = Date.now() + 120_000;
  while (Number(await page.getAttribute("#charts", "data-samples")) < 60) {
    if (Date.now() > deadline) throw new Error(`${url}: the charts did not fill a minute within two`);
    await page.waitForTimeout(1_000);
  }
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await page.screenshot({ path: out, fullPage: true });
  process.stdout.write(`${path.relative(process.cwd(), out)} <- ${url}\n`);
} finally {
  await browser.close();
}

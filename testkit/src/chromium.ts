// Debian's Chromium for the report test: installed with apt-get when missing and running as root,
// otherwise a clear error that says how. Debian's package needs no download from a browser vendor's CDN,
// which the npm packages' own installers do.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { childEnv } from "./env.ts";

// Without the background-networking flags Chromium keeps dialling Google's hosts, which a closed network
// refuses.
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function ensureChromium(executable: string, isRoot: boolean): void {
  if (fs.existsSync(executable)) return;
  if (!isRoot) {
    throw new Error(
      `Chromium not found at ${executable}. Install Debian's package: sudo apt-get install -y chromium ` +
        "(or point ORDERFLOW_CHROMIUM at a Chromium binary).",
    );
  }
  const env = childEnv({ DEBIAN_FRONTEND: "noninteractive" });
  try {
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "chromium"], {
      env,
      stdio: "pipe",
      timeout: 600_000,
    });
  } catch {
    execFileSync("apt-get", ["update"], { env, stdio: "pipe", timeout: 300_000 });
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "chromium"], {
      env,
      stdio: "pipe",
      timeout: 600_000,
    });
  }
  if (!fs.existsSync(executable))
    throw new Error(`apt-get installed chromium but ${executable} is still missing`);
}

export function launchChromium(executable: string): Promise<Browser> {
  return chromium.launch({ executablePath: executable, headless: true, args: FLAGS, timeout: 60_000 });
}

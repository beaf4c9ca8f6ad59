// The only reader of the environment in load-tests.
import path from "node:path";
import { fileURLToPath } from "node:url";

export const loadTestsRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface LoadTestsEnv {
  /** Where runs write their JSON, ledger and HTML (git-ignored). */
  reportsDir: string;
  /** Debian's Chromium, for the report test. */
  chromiumPath: string;
  isRoot: boolean;
}

export function readLoadTestsEnv(): LoadTestsEnv {
  return {
    reportsDir: path.resolve(process.env.ORDERFLOW_REPORTS_DIR || path.join(loadTestsRoot, "reports")),
    chromiumPath: process.env.ORDERFLOW_CHROMIUM || "/usr/bin/chromium",
    isRoot: typeof process.getuid === "function" && process.getuid() === 0,
  };
}

/** The environment for a child process (apt-get), with a few variables added. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

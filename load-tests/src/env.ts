// The only reader of the environment in load-tests.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type RawEnv, readEnv, str } from "@orderflow/config";

export const loadTestsRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface LoadTestsEnv {
  /** Where runs write their JSON, ledger and HTML (git-ignored). */
  reportsDir: string;
  /** Debian's Chromium, for the report test. */
  chromiumPath: string;
  isRoot: boolean;
}

export function readLoadTestsEnv(env: RawEnv = process.env): LoadTestsEnv {
  const e = readEnv(
    {
      reportsDir: str("ORDERFLOW_REPORTS_DIR").default(path.join(loadTestsRoot, "reports")),
      chromiumPath: str("ORDERFLOW_CHROMIUM").default("/usr/bin/chromium"),
    },
    env,
  );
  return {
    reportsDir: path.resolve(e.reportsDir),
    chromiumPath: e.chromiumPath,
    isRoot: typeof process.getuid === "function" && process.getuid() === 0,
  };
}

/** The environment for a child process (apt-get), with a few variables added. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

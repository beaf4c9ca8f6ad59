// The only reader of the environment in the load generator (and, through it, the fault lab's reports).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type RawEnv, readEnv, str } from "@orderflow/config";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface LoadEnv {
  /** Where runs write their JSON, ledger and HTML (git-ignored): reports/ at the repository's root. */
  reportsDir: string;
}

export function readLoadEnv(env: RawEnv = process.env): LoadEnv {
  const e = readEnv(
    { reportsDir: str("ORDERFLOW_REPORTS_DIR").default(path.join(repoRoot, "reports")) },
    env,
  );
  return { reportsDir: path.resolve(e.reportsDir) };
}

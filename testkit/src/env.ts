// The only reader of the environment in the test kit.
import { type RawEnv, readEnv, str } from "@orderflow/config";

export interface TestkitEnv {
  /** Debian's Chromium, for the tests that open a report or the console in a browser. */
  chromiumPath: string;
  isRoot: boolean;
}

export function readTestkitEnv(env: RawEnv = process.env): TestkitEnv {
  const e = readEnv({ chromiumPath: str("ORDERFLOW_CHROMIUM").default("/usr/bin/chromium") }, env);
  return {
    chromiumPath: e.chromiumPath,
    isRoot: typeof process.getuid === "function" && process.getuid() === 0,
  };
}

/** The environment for a child process (apt-get), with a few variables added. */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

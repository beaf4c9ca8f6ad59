// `pnpm stack redrive <queue> [--id ...]`: messaging's own `messaging redrive` command, run with the local
// stack's admin URLs in MESSAGING_AMQP_URLS. A child process rather than an import: infra is a dev tool
// that packages use in their tests, so it must not depend on them at run time (a package cycle).
import { spawn } from "node:child_process";
import path from "node:path";
import { amqpUrlsFor } from "./broker-urls.ts";
import { inheritedEnv, repoRoot } from "./env.ts";
import type { Stack } from "./open-stack.ts";

/** Runs the redrive; its JSON line goes to stdout, its errors to stderr. Resolves to its exit code. */
export function redriveParked(s: Stack, queue: string, messageIds: string[] = []): Promise<number> {
  const cli = path.join(repoRoot, "packages/messaging/src/cli.ts");
  const args = ["--import", "tsx", cli, "redrive", queue, ...messageIds.flatMap((id) => ["--id", id])];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    stdio: "inherit",
    env: { ...inheritedEnv(), MESSAGING_AMQP_URLS: amqpUrlsFor(s, "admin").join(",") },
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

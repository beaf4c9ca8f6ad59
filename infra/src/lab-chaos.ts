// `pnpm stack chaos` belongs to the fault lab (lab/src/faults), which builds on this package; the stack's
// command line hands the verb over as a child process, so the package graph keeps one direction.
import { spawn } from "node:child_process";
import path from "node:path";
import { repoRoot } from "./env.ts";

export const LAB_CHAOS_ENTRY = "lab/src/faults/cli.ts";

export function runLabChaos(args: string[]): Promise<number> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(repoRoot, LAB_CHAOS_ENTRY), ...args], {
    stdio: "inherit",
  });
  // Ctrl-C reaches the child through the terminal's process group; it undoes its fault and exits.
  const forward = (sig: NodeJS.Signals) => child.kill(sig);
  process.on("SIGINT", () => {});
  process.on("SIGTERM", forward);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

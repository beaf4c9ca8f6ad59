// A command-line entry of infra (cli.ts, dev.ts) run as a child process that a test can read while it
// runs, signal, and wait for.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { repoRoot } from "@orderflow/infra";
import { childEnv } from "./env.ts";

export interface CliProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number>;
}

export function runCli(entry: string, args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(repoRoot, entry), ...args], {
    cwd: repoRoot,
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (b: Buffer) => {
    out += b.toString();
  });
  child.stderr?.on("data", (b: Buffer) => {
    out += b.toString();
  });
  const exited = new Promise<number>((resolve) =>
    child.once("exit", (code, sig) => resolve(code ?? (sig ? 128 : 1))),
  );
  return { child, output: () => out, exited };
}

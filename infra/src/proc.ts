// Small process helpers: run a command with a deadline, start a detached daemon, check and end PIDs.

import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import { inheritedEnv } from "./env.ts";

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
  /** Run as this OS user (PostgreSQL refuses to run as root). */
  asUser?: string;
}

/** Runs a program to completion; never throws for a non-zero exit (callers decide). */
export function run(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const [file, argv] = opts.asUser ? ["runuser", ["-u", opts.asUser, "--", cmd, ...args]] : [cmd, args];
  return new Promise((resolve) => {
    execFile(
      file,
      argv,
      {
        env: opts.env ?? inheritedEnv(),
        cwd: opts.cwd,
        timeout: opts.timeoutMs ?? 60_000,
        maxBuffer: 16 << 20,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({
          code,
          stdout: String(stdout),
          stderr: String(stderr) || (err && !stderr ? String(err) : ""),
        });
      },
    );
  });
}

export async function runOrThrow(
  what: string,
  cmd: string,
  args: string[],
  opts: RunOptions = {},
): Promise<string> {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) {
    throw new Error(`${what} failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().slice(-2000)}`);
  }
  return r.stdout;
}

/** Starts a long-running program detached with setsid, output appended to logFile; returns its PID. */
export function spawnDaemon(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; logFile: string },
): number {
  const fd = fs.openSync(opts.logFile, "a");
  try {
    const child = spawn(cmd, args, {
      env: opts.env ?? inheritedEnv(),
      cwd: opts.cwd,
      detached: true,
      stdio: ["ignore", fd, fd],
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${cmd}`);
    return child.pid;
  } finally {
    fs.closeSync(fd);
  }
}

export function isAlive(pid: number | undefined): pid is number {
  if (!pid || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  // A zombie still answers kill(0); treat it as dead.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}

export function readPid(file: string): number | undefined {
  try {
    const n = Number.parseInt(fs.readFileSync(file, "utf8").trim().split("\n")[0] ?? "", 10);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

export function signal(pid: number | undefined, sig: NodeJS.Signals): boolean {
  if (!isAlive(pid)) return false;
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}

/**
 * Polls `check` until it returns a value other than undefined/false, or throws after the deadline an
 * error that names `what` and the last error the check threw. The tests' `eventually`
 * (@orderflow/testkit) is this loop with test defaults.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 60_000, intervalMs = 250 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const why =
        lastError === undefined
          ? ""
          : `: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export async function waitForExit(pid: number | undefined, timeoutMs: number): Promise<boolean> {
  try {
    await waitFor(`PID ${pid} to exit`, () => !isAlive(pid), { timeoutMs, intervalMs: 100 });
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM, then SIGKILL after graceMs. Only ever called with PIDs the stack recorded itself. */
export async function stopPid(pid: number | undefined, graceMs = 15_000): Promise<void> {
  if (!signal(pid, "SIGTERM")) return;
  if (await waitForExit(pid, graceMs)) return;
  signal(pid, "SIGKILL");
  await waitForExit(pid, 5_000);
}

export function tailFile(file: string, lines: number): string {
  try {
    const text = fs.readFileSync(file, "utf8");
    return text
      .split("\n")
      .slice(-lines - 1)
      .join("\n");
  } catch {
    return "";
  }
}

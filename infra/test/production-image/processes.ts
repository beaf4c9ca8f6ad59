// The processes a test starts from the built tree: each keeps its output (the last 256 kB) for the
// failure message, and is stopped by its own PID, SIGTERM first.
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";

export interface Started {
  name: string;
  pid: number;
  output: () => string;
  /** Resolves with the exit code (null when a signal ended it) once the process has exited. */
  exited: Promise<number | null>;
  running: () => boolean;
}

const KEEP = 256 * 1024;

export function startProcess(
  name: string,
  command: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string> },
): Started {
  const child: ChildProcess = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: "pipe" });
  if (child.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  let out = "";
  const keep = (b: Buffer) => {
    out = (out + b.toString("utf8")).slice(-KEEP);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let done = false;
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      done = true;
      resolve(code);
    }),
  );
  return { name, pid: child.pid, output: () => out, exited, running: () => !done };
}

/** SIGTERM, then SIGKILL once `graceMs` has passed; returns the exit code (null if it was killed). */
export async function stopProcess(p: Started, graceMs = 15_000): Promise<number | null> {
  if (!p.running()) return p.exited;
  process.kill(p.pid, "SIGTERM");
  const timer = new Promise<"late">((r) => setTimeout(() => r("late"), graceMs).unref());
  if ((await Promise.race([p.exited, timer])) === "late" && p.running()) {
    process.kill(p.pid, "SIGKILL");
    await p.exited;
    return null;
  }
  return p.exited;
}

/** A TCP port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("the OS gave no port"))));
    });
  });
}

/**
 * Polls `check` until it gives a value; fails at the deadline, or at once if one of the processes exits
 * (a saga across several of them needs all of them).
 */
export async function whileRunning<T>(
  running: Started | readonly Started[],
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const ps = Array.isArray(running) ? running : [running as Started];
  // One process: all it kept; several: the end of each, so the message stays readable.
  const tail = ps.length === 1 ? KEEP : 8 * 1024;
  const outputs = () => ps.map((p) => `--- ${p.name} output ---\n${p.output().slice(-tail)}`).join("\n");
  const deadline = Date.now() + timeoutMs;
  let lastError = "";
  for (;;) {
    const gone = ps.find((p) => !p.running());
    if (gone) throw new Error(`${gone.name} exited before ${what}\n--- its output ---\n${gone.output()}`);
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (e) {
      lastError = `: ${(e as Error).message}`;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError}\n${outputs()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

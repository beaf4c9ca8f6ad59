// The control service's keeper: runs it (`node --import tsx <entry>`, argv[2]) with the stack's control
// environment and restarts it whenever it exits (backoff 1 s doubling to 10 s, reset after 30 s up),
// like compose's `restart: unless-stopped`. SIGTERM stops the service gracefully (it undoes its timed
// faults), then the keeper exits. Started by control-process.ts' startControl, which records its PID.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import { controlEnv } from "./control-process.ts";
import { inheritedEnv, readInfraEnv, repoRoot } from "./env.ts";
import { openStack } from "./open-stack.ts";
import { readPid, waitForExit } from "./proc.ts";

const entry = process.argv[2];
if (!entry) {
  process.stderr.write("usage: keeper-main.ts <entry file>\n");
  process.exit(2);
}
const stack = openStack(readInfraEnv(), false);
const { control } = stack.layout;
const log = (msg: string) => process.stdout.write(`${new Date().toISOString()} keeper ${msg}\n`);
let child: ChildProcess | undefined;
let stopping = false;
let attempt = 0;

function start(): void {
  if (stopping) return;
  const startedAt = Date.now();
  const c = spawn(process.execPath, ["--import", "tsx", entry as string], {
    env: { ...inheritedEnv(), ...controlEnv(stack) },
    cwd: repoRoot, // where `--import tsx` resolves from
    stdio: ["ignore", "inherit", "inherit"], // the keeper's own output: the control log
  });
  child = c;
  if (c.pid) fs.writeFileSync(control.pidFile, `${c.pid}\n`);
  log(`started the control service pid ${c.pid}`);
  c.on("exit", (code, signal) => {
    if (child === c) child = undefined;
    if (stopping) return;
    attempt = Date.now() - startedAt > 30_000 ? 0 : attempt + 1;
    const delay = Math.min(1_000 * 2 ** Math.max(attempt - 1, 0), 10_000);
    log(`the control service exited (code ${code}, signal ${signal}); restarting in ${delay} ms`);
    setTimeout(start, delay);
  });
}

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  const pid = child?.pid;
  child?.kill("SIGTERM");
  // Room for the service to undo its timed faults; a broker node's start takes a while.
  if (!(await waitForExit(pid, 30_000))) child?.kill("SIGKILL");
  for (const [file, own] of [
    [control.pidFile, pid],
    [control.keeperPidFile, process.pid],
  ] as const)
    if (readPid(file) === own) fs.rmSync(file, { force: true });
  log("stopped");
  process.exit(0);
}

process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
start();

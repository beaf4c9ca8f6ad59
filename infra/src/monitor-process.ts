// What the four monitoring processes (Prometheus, Alertmanager, the PostgreSQL and Redis exporters) share:
// started once (idempotent), a PID file the stack wrote itself, healthy when an HTTP path answers 2xx.
import fs from "node:fs";
import { inheritedEnv } from "./env.ts";
import type { MonitorLayout } from "./layout.ts";
import { isAlive, readPid, spawnDaemon, stopPid, tailFile, waitFor } from "./proc.ts";

export interface MonitorProcess {
  /** For messages: "Prometheus", "the Redis exporter", ... */
  what: string;
  layout: MonitorLayout;
  command: string;
  args: string[];
  /** Added to the inherited environment; where passwords go, never argv (`ps` shows argv to everyone). */
  env?: Record<string, string>;
  /** Answers 2xx once the process serves (e.g. /-/ready). */
  healthPath: string;
}

export const monitorUrl = (m: MonitorLayout): string => `http://127.0.0.1:${m.port}`;

export function monitorPid(m: MonitorLayout): number | undefined {
  const pid = readPid(m.pidFile);
  return isAlive(pid) ? pid : undefined;
}

export async function httpOk(url: string, init: RequestInit = {}, timeoutMs = 2_000): Promise<boolean> {
  try {
    const r = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    await r.body?.cancel();
    return r.ok;
  } catch {
    return false;
  }
}

export async function monitorHealthy(p: Pick<MonitorProcess, "layout" | "healthPath">): Promise<boolean> {
  return monitorPid(p.layout) !== undefined && httpOk(`${monitorUrl(p.layout)}${p.healthPath}`);
}

/** Starts the process unless it runs, then waits until it is healthy. Returns whether it started it. */
export async function startMonitorProcess(p: MonitorProcess, timeoutMs = 30_000): Promise<boolean> {
  const running = monitorPid(p.layout);
  if (!running) {
    fs.mkdirSync(p.layout.dir, { recursive: true });
    const pid = spawnDaemon(p.command, p.args, {
      env: { ...inheritedEnv(), ...p.env },
      cwd: p.layout.dir,
      logFile: p.layout.logFile,
    });
    fs.writeFileSync(p.layout.pidFile, `${pid}\n`);
  }
  const pid = readPid(p.layout.pidFile);
  const outcome = await waitFor(
    `${p.what} on port ${p.layout.port} (see ${p.layout.logFile})`,
    async () => {
      if (!isAlive(pid)) return "exited"; // a bad flag or a taken port: say so now, not at the deadline
      return (await httpOk(`${monitorUrl(p.layout)}${p.healthPath}`)) && "healthy";
    },
    { timeoutMs },
  );
  if (outcome === "exited") throw new Error(`${p.what} exited at start:\n${tailFile(p.layout.logFile, 10)}`);
  return !running;
}

export async function stopMonitorProcess(m: MonitorLayout): Promise<void> {
  await stopPid(monitorPid(m), 10_000);
  fs.rmSync(m.pidFile, { force: true });
}

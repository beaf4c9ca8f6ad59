// The stack's process supervisor, like compose's `restart: unless-stopped`: starts every instance of the
// services, then each relay once its service instance is ready, and restarts any of them that dies
// (backoff 1 s doubling to 10 s, reset after 30 s up). SIGTERM stops them all gracefully, then exits.

import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import { inheritedEnv, readInfraEnv, repoRoot } from "../env.ts";
import { openStack } from "../open-stack.ts";
import { readPid } from "../proc.ts";
import { type AppDefinition, appDefinitions } from "./definitions.ts";
import {
  type AppState,
  appLogFile,
  readHeld,
  readReplicas,
  readVariant,
  type SupervisorState,
  supervisorPidFile,
  writeState,
} from "./state.ts";

const stack = openStack(readInfraEnv(), false);
// Whoever started this supervisor wrote the variant it runs (control.ts startApps); {} is production.
const variant = readVariant(stack.layout);
const replicas = readReplicas(stack.layout);
const apps = appDefinitions(stack, variant, replicas);
const state: SupervisorState = {
  supervisorPid: process.pid,
  ...(Object.keys(variant).length > 0 ? { variant } : {}),
  replicas,
  apps: Object.fromEntries(
    apps.map((a): [string, AppState] => [
      a.name,
      { pid: null, restarts: 0, startedAt: null, lastExit: null },
    ]),
  ),
};
const children = new Map<string, ChildProcess>();
const restarting = new Set<string>();
let stopping = false;
const save = () => writeState(stack.layout, state);
const log = (msg: string) => process.stdout.write(`${new Date().toISOString()} supervisor ${msg}\n`);

function start(app: AppDefinition, attempt = 0): void {
  if (stopping) return;
  const fd = fs.openSync(appLogFile(stack.layout, app.name), "a");
  const child = spawn(app.command, app.args, {
    env: { ...inheritedEnv(), ...app.env },
    stdio: ["ignore", fd, fd],
    cwd: repoRoot, // where `--import tsx` resolves from
  });
  fs.closeSync(fd);
  const startedAt = Date.now();
  children.set(app.name, child);
  const s = state.apps[app.name] as AppState;
  s.pid = child.pid ?? null;
  s.startedAt = new Date(startedAt).toISOString();
  save();
  log(`started ${app.name} pid ${child.pid}`);
  child.on("exit", (code, signal) => {
    children.delete(app.name);
    s.pid = null;
    s.lastExit = { code, signal, at: new Date().toISOString() };
    save();
    if (stopping || isHeld(app.name)) return;
    const next = Date.now() - startedAt > 30_000 ? 0 : attempt + 1;
    const delay = Math.min(1_000 * 2 ** Math.max(next - 1, 0), 10_000);
    log(`${app.name} exited (code ${code}, signal ${signal}); restarting in ${delay} ms`);
    restarting.add(app.name);
    setTimeout(() => {
      restarting.delete(app.name);
      if (isHeld(app.name) || children.has(app.name)) return;
      s.restarts += 1;
      start(app, next);
    }, delay);
  });
}

// `stack chaos stop <app>` holds an app down (like `docker compose stop`) until `stack chaos start <app>`.
function isHeld(name: string): boolean {
  return readHeld(stack.layout).includes(name);
}
setInterval(() => {
  for (const app of apps) {
    const s = state.apps[app.name] as AppState;
    if (
      !stopping &&
      s.startedAt !== null &&
      !children.has(app.name) &&
      !isHeld(app.name) &&
      !restarting.has(app.name)
    ) {
      start(app);
    }
  }
}, 500); // not unref'd: it also keeps the supervisor alive while every app is held down

async function ready(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopping) {
    try {
      const res = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return true;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

async function stopAll(): Promise<void> {
  stopping = true;
  for (const c of children.values()) c.kill("SIGTERM");
  const deadline = Date.now() + 15_000;
  while (children.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const c of children.values()) c.kill("SIGKILL");
  save();
  // Only our own: a second supervisor started meanwhile (by a race) owns the file now.
  if (readPid(supervisorPidFile(stack.layout)) === process.pid)
    fs.rmSync(supervisorPidFile(stack.layout), { force: true });
  process.exit(0);
}

process.on("exit", (code) => log(`exiting with code ${code}`));
process.on("uncaughtException", (e) => {
  log(`uncaught exception: ${e.stack ?? e.message}`);
  void stopAll();
});
process.on("SIGTERM", () => void stopAll());
process.on("SIGINT", () => void stopAll());
fs.writeFileSync(supervisorPidFile(stack.layout), `${process.pid}\n`);
save();
for (const app of apps.filter((a) => a.kind === "service")) start(app);
for (const app of apps.filter((a) => a.kind === "relay")) {
  const service = apps.find(
    (a) => a.kind === "service" && a.service === app.service && a.instance === app.instance,
  );
  // The relay needs the outbox table, which the service's migrations create.
  void ready(service?.url ?? "", 120_000).then(() => start(app));
}

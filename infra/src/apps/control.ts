// Starting, stopping, inspecting and killing the supervised application processes.
import fs from "node:fs";
import path from "node:path";
import type { ChaosEvent } from "../chaos.ts";
import { repoRoot } from "../env.ts";
import { isAlive, readPid, signal, spawnDaemon, stopPid, waitFor } from "../proc.ts";
import type { Stack } from "../stack.ts";
import { appDefinitions } from "./definitions.ts";
import { appsDir, readHeld, readState, supervisorPidFile, writeHeld } from "./state.ts";

export interface AppStatus {
  name: string;
  kind: "service" | "relay";
  url: string | null;
  pid: number | null;
  healthy: boolean;
  restarts: number;
}

export function supervisorPid(s: Stack): number | undefined {
  const pid = readPid(supervisorPidFile(s.layout));
  return isAlive(pid) ? pid : undefined;
}

export async function appsStatus(s: Stack): Promise<AppStatus[]> {
  const state = readState(s.layout);
  if (!supervisorPid(s) || !state) return [];
  return Promise.all(
    appDefinitions(s).map(async (a) => {
      const st = state.apps[a.name];
      const pid = st?.pid && isAlive(st.pid) ? st.pid : null;
      let healthy = pid !== null;
      if (healthy && a.url) {
        try {
          healthy = (await fetch(`${a.url}/health/ready`, { signal: AbortSignal.timeout(2_000) })).ok;
        } catch {
          healthy = false;
        }
      }
      return { name: a.name, kind: a.kind, url: a.url ?? null, pid, healthy, restarts: st?.restarts ?? 0 };
    }),
  );
}

/**
 * Starts the supervisor (if not running) and waits until every service is ready and every relay runs.
 * `extraEnv` replaces ORDERFLOW_APPS_ENV for the apps of this supervisor (the fault lab's switches).
 */
export async function startApps(
  s: Stack,
  timeoutMs = 180_000,
  extraEnv?: Record<string, string>,
): Promise<AppStatus[]> {
  fs.mkdirSync(appsDir(s.layout), { recursive: true });
  writeHeld(s.layout, []); // `up` means everything runs, whatever a test or an operator held before
  if (!supervisorPid(s)) {
    spawnDaemon(
      path.join(repoRoot, "node_modules/.bin/tsx"),
      [path.join(repoRoot, "infra/src/apps/supervisor-main.ts")],
      {
        logFile: path.join(appsDir(s.layout), "supervisor.log"),
        cwd: repoRoot,
        ...(extraEnv ? { env: { ...process.env, ORDERFLOW_APPS_ENV: JSON.stringify(extraEnv) } } : {}),
      },
    );
  }
  return waitFor(
    "every service ready and every relay running (see .stack/apps/*.log)",
    async () => {
      const st = await appsStatus(s);
      return st.length > 0 && st.every((a) => a.healthy) ? st : undefined;
    },
    { timeoutMs, intervalMs: 1_000 },
  );
}

export async function stopApps(s: Stack): Promise<void> {
  const pid = supervisorPid(s);
  const state = readState(s.layout);
  writeHeld(s.layout, []);
  await stopPid(pid, 25_000);
  // If the supervisor had to be killed, its children may be left: end exactly those it recorded.
  for (const a of Object.values(state?.apps ?? {})) if (a.pid) await stopPid(a.pid, 10_000);
}

/** The extra environment the running apps were started with ({} when none, or when nothing runs). */
export function appsExtraEnvInUse(s: Stack): Record<string, string> {
  return supervisorPid(s) ? (readState(s.layout)?.extraEnv ?? {}) : {};
}

/**
 * Restarts every app with exactly `extraEnv` (nothing restarts when it is already in use), so the fault
 * lab can switch a pitfall on for one scenario and off again for the next.
 */
export async function restartAppsWithEnv(s: Stack, extraEnv: Record<string, string>): Promise<boolean> {
  const current = appsExtraEnvInUse(s);
  const same = (a: Record<string, string>, b: Record<string, string>) =>
    Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);
  if (supervisorPid(s) && same(current, extraEnv) && (await appsStatus(s)).every((a) => a.healthy))
    return false;
  await stopApps(s);
  await startApps(s, 180_000, extraEnv);
  return true;
}

/** SIGKILLs one application process ("order", "relay:order", ...); the supervisor restarts it. */
export async function killApp(s: Stack, name: string): Promise<ChaosEvent> {
  const startedAt = new Date().toISOString();
  const st = readState(s.layout)?.apps[name];
  if (!st)
    throw new Error(
      `unknown app "${name}"; apps: ${appDefinitions(s)
        .map((a) => a.name)
        .join(", ")}`,
    );
  if (!st.pid || !signal(st.pid, "SIGKILL")) throw new Error(`${name} is not running`);
  return {
    action: "kill",
    target: name,
    startedAt,
    finishedAt: new Date().toISOString(),
    detail: { pid: st.pid },
  };
}

/** Stops one app and keeps it down (the supervisor does not restart it) until `startApp`. */
export async function stopApp(s: Stack, name: string): Promise<ChaosEvent> {
  const startedAt = new Date().toISOString();
  known(s, name);
  writeHeld(s.layout, [...readHeld(s.layout), name]);
  const pid = readState(s.layout)?.apps[name]?.pid ?? undefined;
  await stopPid(pid, 20_000);
  return { action: "stop", target: name, startedAt, finishedAt: new Date().toISOString(), detail: { pid } };
}

/** Releases an app stopped with `stopApp` and waits until it runs (and, for a service, is ready). */
export async function startApp(s: Stack, name: string): Promise<ChaosEvent> {
  const startedAt = new Date().toISOString();
  known(s, name);
  writeHeld(
    s.layout,
    readHeld(s.layout).filter((n) => n !== name),
  );
  await waitFor(
    `${name} to run again`,
    async () => (await appsStatus(s)).find((a) => a.name === name)?.healthy,
    {
      timeoutMs: 60_000,
      intervalMs: 500,
    },
  );
  return { action: "start", target: name, startedAt, finishedAt: new Date().toISOString() };
}

function known(s: Stack, name: string): void {
  if (!appDefinitions(s).some((a) => a.name === name)) {
    throw new Error(
      `unknown app "${name}"; apps: ${appDefinitions(s)
        .map((a) => a.name)
        .join(", ")}`,
    );
  }
}

/** Holds every running app stopped (component tests drive the queues themselves). Idempotent. */
export async function holdApps(s: Stack): Promise<void> {
  const names = appDefinitions(s).map((a) => a.name);
  if (names.every((n) => readHeld(s.layout).includes(n))) return;
  writeHeld(s.layout, names);
  const state = readState(s.layout);
  await Promise.all(names.map((n) => stopPid(state?.apps[n]?.pid ?? undefined, 20_000)));
}

/** Lets every held app run again and waits until all are ready. Idempotent. */
export async function releaseApps(s: Stack): Promise<void> {
  if (readHeld(s.layout).length === 0 && (await appsStatus(s)).every((a) => a.healthy)) return;
  writeHeld(s.layout, []);
  await waitFor("every service ready again", async () => (await appsStatus(s)).every((a) => a.healthy), {
    timeoutMs: 120_000,
    intervalMs: 500,
  });
}

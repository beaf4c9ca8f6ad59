// Starting, stopping, inspecting and killing the supervised application processes.
import fs from "node:fs";
import path from "node:path";
import { repoRoot } from "../env.ts";
import { MAX_REPLICAS } from "../layout.ts";
import type { Stack } from "../open-stack.ts";
import { isAlive, readPid, signal, spawnDaemon, stopPid, waitFor } from "../proc.ts";
import { writeAppTargets } from "../prometheus.ts";
import type { ServiceName } from "../services.ts";
import { appDefinitions, serviceInstanceUrls } from "./definitions.ts";
import {
  appLogFile,
  appsDir,
  readHeld,
  readReplicas,
  readState,
  supervisorPidFile,
  writeHeld,
  writeReplicas,
  writeVariant,
} from "./state.ts";
import { type AppVariant, checkVariant, normalizeVariant, sameVariant } from "./variant.ts";

export interface AppStatus {
  /** The instance's own name: "order" (instance 1), "order#2", "relay:order", "relay:order#2", ... */
  name: string;
  /** What it is an instance of ("order", "relay:order"), and which one (1..replicas). */
  app: string;
  instance: number;
  kind: "service" | "relay";
  url: string | null;
  pid: number | null;
  healthy: boolean;
  restarts: number;
  /** Stopped on purpose (`stack chaos stop`, or a test run holding the apps): not restarted until released. */
  held: boolean;
}

export function supervisorPid(s: Stack): number | undefined {
  const pid = readPid(supervisorPidFile(s.layout));
  return isAlive(pid) ? pid : undefined;
}

/** The variant the running apps were started with ({} when production, or when nothing runs). */
export function appsVariantInUse(s: Stack): AppVariant {
  return supervisorPid(s) ? (readState(s.layout)?.variant ?? {}) : {};
}

/** How many instances of each app run (1 when nothing runs). */
export function replicasInUse(s: Stack): number {
  return supervisorPid(s) ? (readState(s.layout)?.replicas ?? 1) : 1;
}

/** The base URL of every running instance of each service, instance 1 first. */
export const serviceUrlsInUse = (s: Stack): Record<ServiceName, string[]> =>
  serviceInstanceUrls(s, replicasInUse(s));

export function checkReplicas(replicas: number): void {
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > MAX_REPLICAS)
    throw new Error(`replicas must be a whole number from 1 to ${MAX_REPLICAS}, got ${replicas}`);
}

export async function appsStatus(s: Stack): Promise<AppStatus[]> {
  const state = readState(s.layout);
  if (!supervisorPid(s) || !state) return [];
  const held = readHeld(s.layout);
  return Promise.all(
    appDefinitions(s, state.variant, state.replicas ?? 1).map(async (a) => {
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
      return {
        name: a.name,
        app: a.app,
        instance: a.instance,
        kind: a.kind,
        url: a.url ?? null,
        pid,
        healthy,
        restarts: st?.restarts ?? 0,
        held: held.includes(a.name),
      };
    }),
  );
}

/**
 * Starts the supervisor (if not running) and waits until every service is ready and every relay runs.
 * A supervisor started here runs `variant` (default: production) with `replicas` of each app; a running
 * one keeps its own.
 */
export async function startApps(
  s: Stack,
  timeoutMs = 180_000,
  variant: AppVariant = {},
  replicas = 1,
): Promise<AppStatus[]> {
  fs.mkdirSync(appsDir(s.layout), { recursive: true });
  writeHeld(s.layout, []); // `up` means everything runs, whatever a test or an operator held before
  if (!supervisorPid(s)) {
    checkReplicas(replicas);
    checkVariant(variant, appKinds(s));
    writeVariant(s.layout, normalizeVariant(variant));
    writeReplicas(s.layout, replicas);
    spawnDaemon(
      path.join(repoRoot, "node_modules/.bin/tsx"),
      [path.join(repoRoot, "infra/src/apps/supervisor-main.ts")],
      { logFile: appLogFile(s.layout, "supervisor"), cwd: repoRoot },
    );
  }
  // Prometheus reads its targets files again by itself: it scrapes every instance that runs.
  writeAppTargets(s.layout, readReplicas(s.layout));
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

/**
 * Restarts every app as `variant` runs it, with `replicas` of each (default: as many as run now), so the
 * fault lab can run its own composition for one scenario and production for the next. Nothing restarts
 * when that already runs and every app is healthy. Returns whether it restarted. Throws before stopping
 * anything when the variant or the count is invalid.
 */
export async function restartAppsWith(
  s: Stack,
  variant: AppVariant,
  replicas: number = replicasInUse(s),
): Promise<boolean> {
  checkReplicas(replicas);
  checkVariant(variant, appKinds(s));
  if (
    supervisorPid(s) &&
    sameVariant(appsVariantInUse(s), variant) &&
    replicasInUse(s) === replicas &&
    (await appsStatus(s)).every((a) => a.healthy)
  )
    return false;
  await stopApps(s);
  await startApps(s, 180_000, variant, replicas);
  return true;
}

/** What runs, one name per app ("order", "relay:order", ...): what a variant's entries are keyed by. */
const appKinds = (s: Stack): string[] => [...new Set(appDefinitions(s).map((a) => a.app))];
/** Every running instance's name: order, order#2, ... with `stack up --replicas N`. */
export const appNames = (s: Stack): string[] => appDefinitions(s, {}, replicasInUse(s)).map((a) => a.name);

function known(s: Stack, name: string): void {
  if (!appNames(s).includes(name)) throw new Error(`unknown app "${name}"; apps: ${appNames(s).join(", ")}`);
}

/** SIGKILLs one application process ("order", "relay:order", ...); the supervisor restarts it. */
export async function killApp(s: Stack, name: string): Promise<{ pid: number }> {
  known(s, name);
  const pid = readState(s.layout)?.apps[name]?.pid;
  if (!pid || !signal(pid, "SIGKILL")) throw new Error(`${name} is not running`);
  return { pid };
}

/** Stops one app and keeps it down (the supervisor does not restart it) until `startApp`. */
export async function stopApp(s: Stack, name: string): Promise<{ pid: number | undefined }> {
  known(s, name);
  writeHeld(s.layout, [...readHeld(s.layout), name]);
  const pid = readState(s.layout)?.apps[name]?.pid ?? undefined;
  await stopPid(pid, 20_000);
  return { pid };
}

/** Releases an app stopped with `stopApp` and waits until it runs (and, for a service, is ready). */
export async function startApp(s: Stack, name: string): Promise<void> {
  known(s, name);
  writeHeld(
    s.layout,
    readHeld(s.layout).filter((n) => n !== name),
  );
  await waitFor(
    `${name} to run again`,
    async () => (await appsStatus(s)).find((a) => a.name === name)?.healthy,
    { timeoutMs: 60_000, intervalMs: 500 },
  );
}

/** Holds every running app stopped (component tests drive the queues themselves). Idempotent. */
export async function holdApps(s: Stack): Promise<void> {
  const names = appNames(s);
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

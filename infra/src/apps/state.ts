// The supervisor's state file: which application processes run under which PID, and how often they
// were restarted. Written by the supervisor only; read by `stack status` and the chaos controls.
import fs from "node:fs";
import path from "node:path";
import type { Layout } from "../layout.ts";
import type { AppVariant } from "./variant.ts";

export interface AppState {
  pid: number | null;
  restarts: number;
  startedAt: string | null;
  lastExit: { code: number | null; signal: string | null; at: string } | null;
}

export interface SupervisorState {
  supervisorPid: number;
  apps: Record<string, AppState>;
  /** What the apps run when not their own configuration (the fault lab's variants); absent: production. */
  variant?: AppVariant;
  /** How many of each service and relay run (`up --replicas N`); absent in states written before: 1. */
  replicas?: number;
}

export const appsDir = (layout: Layout) => path.join(layout.stackDir, "apps");
export const stateFile = (layout: Layout) => path.join(appsDir(layout), "state.json");
export const supervisorPidFile = (layout: Layout) => path.join(appsDir(layout), "supervisor.pid");
/** The name of one instance: instance 1 keeps the app's own name, so faults aimed at "order" hit it. */
export const instanceName = (app: string, instance: number): string =>
  instance === 1 ? app : `${app}#${instance}`;

/** Where an app's output goes: `order` in order.log, `relay:order` in relay-order.log. */
export const appLogFile = (layout: Layout, app: string) =>
  path.join(appsDir(layout), `${app.replace(":", "-")}.log`);

export function readState(layout: Layout): SupervisorState | undefined {
  try {
    return JSON.parse(fs.readFileSync(stateFile(layout), "utf8")) as SupervisorState;
  } catch {
    return undefined;
  }
}

export function writeState(layout: Layout, state: SupervisorState): void {
  const tmp = `${stateFile(layout)}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(state, null, 2));
  fs.renameSync(tmp, stateFile(layout)); // atomic: a reader never sees half a file
}

const heldFile = (layout: Layout) => path.join(appsDir(layout), "held.json");

/** Apps an operator stopped on purpose: the supervisor does not restart them until released. */
export function readHeld(layout: Layout): string[] {
  try {
    return JSON.parse(fs.readFileSync(heldFile(layout), "utf8")) as string[];
  } catch {
    return [];
  }
}

export function writeHeld(layout: Layout, names: string[]): void {
  fs.mkdirSync(appsDir(layout), { recursive: true }); // `down` after an `up` interrupted before the apps
  fs.writeFileSync(heldFile(layout), JSON.stringify([...new Set(names)]));
}

// The variant the next supervisor starts with: written by whoever starts it, read by the supervisor once.
// Mode 600: the environment may carry broker URLs with their passwords.
const variantFile = (layout: Layout) => path.join(appsDir(layout), "variant.json");

export function writeVariant(layout: Layout, variant: AppVariant): void {
  fs.mkdirSync(appsDir(layout), { recursive: true });
  fs.writeFileSync(variantFile(layout), JSON.stringify(variant), { mode: 0o600 });
}

export function readVariant(layout: Layout): AppVariant {
  try {
    return JSON.parse(fs.readFileSync(variantFile(layout), "utf8")) as AppVariant;
  } catch {
    return {};
  }
}

// How many instances the next supervisor runs of each app: written with the variant, read once.
const replicasFile = (layout: Layout) => path.join(appsDir(layout), "replicas.json");

export function writeReplicas(layout: Layout, replicas: number): void {
  fs.mkdirSync(appsDir(layout), { recursive: true });
  fs.writeFileSync(replicasFile(layout), JSON.stringify(replicas));
}

export function readReplicas(layout: Layout): number {
  try {
    const n = JSON.parse(fs.readFileSync(replicasFile(layout), "utf8")) as unknown;
    return typeof n === "number" && Number.isInteger(n) && n >= 1 ? n : 1;
  } catch {
    return 1;
  }
}

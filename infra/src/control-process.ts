// The control service's process on the local stack (the fault lab's API and live console): run by a
// keeper of its own (keeper-main.ts) that restarts it when it dies. Not under the apps' supervisor: the
// fault lab restarts the apps with its variants, and must not kill the control service that runs it.
import fs from "node:fs";
import path from "node:path";
import { repoRoot } from "./env.ts";
import type { Layout } from "./layout.ts";
import { httpOk, monitorUrl } from "./monitor-process.ts";
import type { Stack } from "./open-stack.ts";
import { isAlive, readPid, spawnDaemon, stopPid, tailFile, waitFor } from "./proc.ts";

/** What the keeper runs, relative to the repository. */
export const CONTROL_ENTRY = "control/src/main.ts";

export const controlUrl = (layout: Layout): string => monitorUrl(layout.control);

const alive = (file: string): number | undefined => {
  const pid = readPid(file);
  return isAlive(pid) ? pid : undefined;
};
/** The control service's own PID, while it runs. */
export const controlPid = (layout: Layout) => alive(layout.control.pidFile);
export const controlKeeperPid = (layout: Layout) => alive(layout.control.keeperPidFile);

export const controlHealthy = async (layout: Layout): Promise<boolean> =>
  controlPid(layout) !== undefined && httpOk(`${controlUrl(layout)}/health/ready`);

/**
 * The control service's environment (control/src/env.ts), on top of the inherited one: its
 * address and token, and the ORDERFLOW_* of this stack, so its local backend opens this very stack.
 */
export function controlEnv(s: Stack): Record<string, string> {
  return {
    CONTROL_HOST: "127.0.0.1",
    CONTROL_PORT: String(s.layout.control.port),
    CONTROL_TOKEN: s.secrets.controlToken,
    CONTROL_BACKEND: "local",
    ORDERFLOW_STACK_DIR: s.env.stackDir,
    ORDERFLOW_PORT_OFFSET: String(s.env.portOffset),
    ORDERFLOW_RABBITMQ_BIN_DIR: s.env.rabbitmqBinDir,
    ...(s.env.postgresBinDir ? { ORDERFLOW_PG_BIN_DIR: s.env.postgresBinDir } : {}),
  };
}

/**
 * Starts the keeper (unless it runs) and waits until the control service answers /health/ready.
 * `entry` is the file the keeper runs (repo-relative or absolute). Returns whether it started the keeper.
 */
export async function startControl(
  s: Stack,
  opts: { entry?: string; timeoutMs?: number } = {},
): Promise<boolean> {
  const { control } = s.layout;
  const running = controlKeeperPid(s.layout);
  fs.mkdirSync(control.dir, { recursive: true });
  const keeper =
    running ??
    spawnDaemon(
      // Node with tsx as a loader, not the tsx wrapper: a signal to the PID must reach the keeper itself.
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(repoRoot, "infra/src/keeper-main.ts"),
        path.resolve(repoRoot, opts.entry ?? CONTROL_ENTRY),
      ],
      { cwd: repoRoot, logFile: control.logFile },
    );
  if (!running) fs.writeFileSync(control.keeperPidFile, `${keeper}\n`);
  const outcome = await waitFor(
    `the control service on ${controlUrl(s.layout)} (see ${control.logFile})`,
    async () => {
      if (!isAlive(keeper)) return "exited"; // a keeper that fails at start: say so now, not at the deadline
      return (await controlHealthy(s.layout)) && "healthy";
    },
    { timeoutMs: opts.timeoutMs ?? 90_000, intervalMs: 500 },
  );
  if (outcome === "exited")
    throw new Error(`the control service's keeper exited:\n${tailFile(control.logFile, 15)}`);
  return !running;
}

/** Stops the keeper, which stops the service (it undoes its timed faults first); then any leftover. */
export async function stopControl(layout: Layout): Promise<void> {
  const service = controlPid(layout);
  await stopPid(controlKeeperPid(layout), 40_000);
  // A keeper killed by hand leaves the service running: end exactly the PID it recorded.
  await stopPid(service, 20_000);
  fs.rmSync(layout.control.keeperPidFile, { force: true });
  fs.rmSync(layout.control.pidFile, { force: true });
}

export interface ControlStatus {
  url: string;
  /** Bearer token of its POSTs; null for a stack whose secrets predate it (the next `up` adds it). */
  token: string | null;
  healthy: boolean;
  pid: number | null;
}

export async function controlStatus(s: Stack): Promise<ControlStatus> {
  return {
    url: controlUrl(s.layout),
    token: s.secrets.controlToken ?? null,
    healthy: await controlHealthy(s.layout),
    pid: controlPid(s.layout) ?? null,
  };
}

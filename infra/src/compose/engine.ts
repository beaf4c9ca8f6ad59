// The Docker engine `pnpm compose` talks to: the one DOCKER_HOST names, else its own if it runs, else the
// system's (/var/run/docker.sock); else, as root on Debian, one of its own that it installs and starts with
// its own socket, data root, exec root and pidfile (so it never meets another engine's containers).
import fs from "node:fs";
import path from "node:path";
import { isAlive, readPid, run, spawnDaemon, stopPid, waitFor } from "../proc.ts";
import { aptInstall, hasCommand, isDebian } from "./apt.ts";
import type { ComposeEnv } from "./env.ts";
import type { ComposeLayout } from "./layout.ts";

export const SYSTEM_SOCKET = "/var/run/docker.sock";

export interface Engine {
  host: string;
  /** "given": DOCKER_HOST; "system": /var/run/docker.sock; "own": started by `pnpm compose`. */
  kind: "given" | "system" | "own";
}

export class NoEngineError extends Error {}

/** True when an engine answers on host (its server version). */
export async function engineAnswers(host: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const r = await run("docker", ["version", "--format", "{{.Server.Version}}"], {
    env: { ...env, DOCKER_HOST: host },
    timeoutMs: 15_000,
  });
  return r.code === 0 && r.stdout.trim() !== "";
}

const ownHost = (layout: ComposeLayout) => `unix://${layout.engine.socket}`;

export const ownEngineRunning = (layout: ComposeLayout): boolean => isAlive(readPid(layout.engine.pidfile));

/** The engine that runs now, or undefined. */
export async function findEngine(env: ComposeEnv, layout: ComposeLayout): Promise<Engine | undefined> {
  if (env.dockerHost) {
    if (await engineAnswers(env.dockerHost, env.inherited)) return { host: env.dockerHost, kind: "given" };
    throw new NoEngineError(`DOCKER_HOST=${env.dockerHost} does not answer (is that engine running?)`);
  }
  if (ownEngineRunning(layout) && (await engineAnswers(ownHost(layout), env.inherited)))
    return { host: ownHost(layout), kind: "own" };
  if (fs.existsSync(SYSTEM_SOCKET) && (await engineAnswers(`unix://${SYSTEM_SOCKET}`, env.inherited)))
    return { host: `unix://${SYSTEM_SOCKET}`, kind: "system" };
  return undefined;
}

/** findEngine, or start our own (installing docker.io first when dockerd is missing). */
export async function findOrStartEngine(
  env: ComposeEnv,
  layout: ComposeLayout,
  log: (m: string) => void,
): Promise<Engine> {
  const found = await findEngine(env, layout);
  if (found) return found;
  if (!env.isRoot)
    throw new NoEngineError(
      `no Docker engine runs (DOCKER_HOST is unset and ${SYSTEM_SOCKET} does not answer), and only root can start one: start Docker (or set DOCKER_HOST), or run pnpm compose as root`,
    );
  if (!isDebian())
    throw new NoEngineError(
      "no Docker engine runs, and pnpm compose starts its own only on Debian: start Docker or set DOCKER_HOST",
    );
  if (!(await hasCommand("dockerd", env.inherited))) await aptInstall(["docker.io"], env.inherited, log);
  return startOwnEngine(env, layout, log);
}

/** The storage driver our engine used first: images live in its folder, so it stays the same. */
const driverFile = (layout: ComposeLayout) => path.join(layout.engine.dir, "storage-driver");

async function startOwnEngine(
  env: ComposeEnv,
  layout: ComposeLayout,
  log: (m: string) => void,
): Promise<Engine> {
  const e = layout.engine;
  for (const d of [e.dir, e.dataRoot, e.execRoot]) fs.mkdirSync(d, { recursive: true });
  // An empty daemon.json of our own: /etc/docker/daemon.json may set hosts or roots that would clash.
  const config = path.join(e.dir, "daemon.json");
  fs.writeFileSync(config, "{}\n");
  const chosen = fs.existsSync(driverFile(layout)) ? fs.readFileSync(driverFile(layout), "utf8").trim() : "";
  // overlay2 shares layers; vfs copies each one (slow, large) but works on any file system.
  const drivers = chosen ? [chosen] : ["overlay2", "vfs"];
  let lastError = "";
  for (const driver of drivers) {
    log(`starting a Docker engine of its own (${driver}) on ${e.socket}`);
    fs.rmSync(e.socket, { force: true });
    const pid = spawnDaemon(
      "nice",
      [
        "-n",
        "10",
        "dockerd",
        `--config-file=${config}`,
        `--data-root=${e.dataRoot}`,
        `--exec-root=${e.execRoot}`,
        `--host=unix://${e.socket}`,
        `--pidfile=${e.pidfile}`,
        `--storage-driver=${driver}`,
        // It leaves the host's firewall and bridges alone: containers reach each other on their compose
        // network and the host through published ports (docker-proxy on loopback), nothing else.
        "--iptables=false",
        "--ip-forward=false",
        "--ip-masq=false",
        "--bridge=none",
      ],
      { env: env.inherited, logFile: e.log },
    );
    try {
      await waitFor(
        "the engine to answer",
        async () => {
          if (!isAlive(pid)) throw new Error(`dockerd exited (see ${e.log})`);
          return engineAnswers(ownHost(layout), env.inherited);
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      fs.writeFileSync(driverFile(layout), `${driver}\n`);
      return { host: ownHost(layout), kind: "own" };
    } catch (err) {
      lastError = (err as Error).message;
      await stopPid(pid, 20_000);
    }
  }
  throw new NoEngineError(`could not start a Docker engine: ${lastError}`);
}

/** Stops the engine `pnpm compose` started (dockerd, which stops its containerd); no other. */
export async function stopOwnEngine(layout: ComposeLayout, log: (m: string) => void): Promise<boolean> {
  const pid = readPid(layout.engine.pidfile);
  if (!isAlive(pid)) return false;
  log(`stopping the engine it started (dockerd PID ${pid})`);
  await stopPid(pid, 60_000);
  // dockerd stops the containerd it started; if it died first, that containerd is ours to stop.
  const containerd = readPid(path.join(layout.engine.execRoot, "containerd", "containerd.pid"));
  if (isAlive(containerd)) await stopPid(containerd, 20_000);
  await unmountUnder(layout.engine.dir);
  return true;
}

/**
 * Mounts the engine leaves behind under its folders (its data root, mounted on itself, and the network
 * namespace of its default sandbox): without these the folder could not be deleted. Deepest first.
 */
async function unmountUnder(dir: string): Promise<void> {
  const prefix = `${path.resolve(dir)}/`;
  const points = fs
    .readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1] ?? "")
    .filter((mp) => mp.startsWith(prefix))
    .sort((a, b) => b.length - a.length);
  for (const mp of points) await run("umount", [mp], { timeoutMs: 30_000 });
}

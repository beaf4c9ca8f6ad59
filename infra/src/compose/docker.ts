// The docker client as `pnpm compose` calls it: always with the engine it found (DOCKER_HOST) and its own
// DOCKER_CONFIG (for the Compose plugin), under nice so builds leave the machine usable.
import { spawn } from "node:child_process";
import { type RunResult, run } from "../proc.ts";

export interface Docker {
  /** DOCKER_HOST of the engine, e.g. unix:///work/main/.compose/engine/docker.sock. */
  host: string;
  env: NodeJS.ProcessEnv;
  /** docker ARGS, output captured. */
  run(args: string[], timeoutMs?: number): Promise<RunResult>;
  /** docker ARGS, output streamed to ours (builds, logs); resolves with the exit code. */
  stream(args: string[], opts?: { timeoutMs?: number; cwd?: string }): Promise<number>;
}

export function dockerClient(
  host: string,
  dockerConfig: string | undefined,
  inherited: NodeJS.ProcessEnv,
  cwd: string,
): Docker {
  const env = { ...inherited, DOCKER_HOST: host, ...(dockerConfig ? { DOCKER_CONFIG: dockerConfig } : {}) };
  return {
    host,
    env,
    run: (args, timeoutMs = 120_000) => run("docker", args, { env, cwd, timeoutMs }),
    stream: (args, opts = {}) =>
      new Promise((resolve) => {
        const child = spawn("nice", ["-n", "10", "docker", ...args], {
          env,
          cwd: opts.cwd ?? cwd,
          stdio: ["ignore", "inherit", "inherit"],
        });
        const timer = opts.timeoutMs
          ? setTimeout(() => child.kill("SIGTERM"), opts.timeoutMs).unref()
          : undefined;
        child.on("error", () => resolve(127));
        child.on("exit", (code, sig) => {
          if (timer) clearTimeout(timer);
          resolve(code ?? (sig ? 128 : 1));
        });
      }),
  };
}

/** "unix:///a/b.sock" -> "/a/b.sock"; undefined for a host that is not a local socket. */
export function socketPath(host: string): string | undefined {
  return host.startsWith("unix://") ? host.slice("unix://".length) : undefined;
}

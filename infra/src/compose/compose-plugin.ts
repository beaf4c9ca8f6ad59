// Compose v2 (`docker compose`): the client's own if it has one; else, as root, Debian trixie's
// docker-compose package, whose static plugin binary goes into a cli-plugins folder of ours that the
// client finds through DOCKER_CONFIG. Compose v1 (docker-compose 1.x) is not used: it lacks `name:`.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { run, runOrThrow } from "../proc.ts";
import { downloadFromTrixie } from "./apt.ts";
import type { ComposeEnv } from "./env.ts";
import type { ComposeLayout } from "./layout.ts";

/** The major version `docker compose version --short` prints, or undefined when there is no plugin. */
async function composeMajor(env: NodeJS.ProcessEnv): Promise<number | undefined> {
  const r = await run("docker", ["compose", "version", "--short"], { env, timeoutMs: 15_000 });
  const m = /^v?(\d+)\./.exec(r.stdout.trim());
  return r.code === 0 && m ? Number(m[1]) : undefined;
}

/**
 * The DOCKER_CONFIG every docker call gets: undefined (the user's own) when their client has Compose v2,
 * else our folder holding the plugin.
 */
export async function ensureCompose(
  env: ComposeEnv,
  layout: ComposeLayout,
  log: (m: string) => void,
): Promise<string | undefined> {
  if (((await composeMajor(env.inherited)) ?? 0) >= 2) return undefined;
  const ours = { ...env.inherited, DOCKER_CONFIG: layout.dockerConfig };
  if (((await composeMajor(ours)) ?? 0) >= 2) return layout.dockerConfig;
  if (!env.isRoot)
    throw new Error(
      "Docker Compose v2 is missing (`docker compose version` fails): install the docker-compose-plugin package, or run pnpm compose as root to fetch it",
    );
  const deb = await downloadFromTrixie("docker-compose", layout, env.inherited, log);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "orderflow-compose-"));
  try {
    await runOrThrow("dpkg-deb -x", "dpkg-deb", ["-x", deb, tmp], { timeoutMs: 60_000 });
    const plugin = path.join(tmp, "usr/libexec/docker/cli-plugins/docker-compose");
    if (!fs.existsSync(plugin))
      throw new Error(`${path.basename(deb)} has no usr/libexec/docker/cli-plugins/docker-compose`);
    const dir = path.join(layout.dockerConfig, "cli-plugins");
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(plugin, path.join(dir, "docker-compose"));
    fs.chmodSync(path.join(dir, "docker-compose"), 0o755);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const major = await composeMajor(ours);
  if ((major ?? 0) < 2)
    throw new Error(`the plugin from ${path.basename(deb)} does not run as docker compose`);
  log(`Compose v2 installed in ${path.join(layout.dockerConfig, "cli-plugins")}`);
  return layout.dockerConfig;
}

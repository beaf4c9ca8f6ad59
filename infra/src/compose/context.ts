// What every verb works with: the engine (found, or started for `up`), the docker client pointed at it,
// and `docker compose` with the project's files.
import fs from "node:fs";
import { repoRoot } from "../env.ts";
import { ensureCompose } from "./compose-plugin.ts";
import { type Docker, dockerClient } from "./docker.ts";
import { type Engine, findEngine, findOrStartEngine, NoEngineError } from "./engine.ts";
import type { ComposeEnv } from "./env.ts";
import { type ComposeLayout, composeLayout } from "./layout.ts";
import { COMPOSE_FILE, type Project, readProject } from "./project.ts";

export interface ComposeContext {
  env: ComposeEnv;
  layout: ComposeLayout;
  project: Project;
  engine: Engine;
  docker: Docker;
  repoRoot: string;
  log: (m: string) => void;
  /** `docker compose -f docker-compose.yml [-f override] ARGS`. */
  composeArgs(args: string[]): string[];
}

export async function openContext(
  env: ComposeEnv,
  log: (m: string) => void,
  { start }: { start: boolean },
): Promise<ComposeContext> {
  const layout = composeLayout(env.composeDir);
  fs.mkdirSync(layout.dir, { recursive: true });
  const engine = start ? await findOrStartEngine(env, layout, log) : await findEngine(env, layout);
  if (!engine)
    throw new NoEngineError(
      "no Docker engine runs (DOCKER_HOST unset, /var/run/docker.sock absent, none started by pnpm compose): run `pnpm compose up`",
    );
  const dockerConfig = await ensureCompose(env, layout, log);
  const docker = dockerClient(engine.host, dockerConfig, env.inherited, repoRoot);
  return {
    env,
    layout,
    project: readProject(repoRoot),
    engine,
    docker,
    repoRoot,
    log,
    composeArgs: (args) => [
      "compose",
      "--project-directory",
      repoRoot,
      "-f",
      COMPOSE_FILE,
      ...(fs.existsSync(layout.overrideFile) ? ["-f", layout.overrideFile] : []),
      ...args,
    ],
  };
}

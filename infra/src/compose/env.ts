// The only reader of the environment for `pnpm compose` and `pnpm env:init` (see .env.example).
import path from "node:path";
import { int, type RawEnv, readEnv, str } from "@orderflow/config";
import { repoRoot } from "../env.ts";

export interface ComposeEnv {
  /** A Docker engine the user chose (unix:///path or tcp://...); unset: find or start one. */
  dockerHost: string | undefined;
  /** Folder of the engine it starts, its CLI plugin, root filesystems and caches (git-ignored). */
  composeDir: string;
  /** Added to every published port of docker-compose.yml, to run beside a stack on the same ports. */
  portOffset: number;
  isRoot: boolean;
  /** Certificates the host's Node trusts besides its own (a TLS-inspecting proxy's), for image builds. */
  extraCaCerts: string | undefined;
  /** What the docker client and apt inherit (PATH, proxies, locale); passed on, never interpreted. */
  inherited: NodeJS.ProcessEnv;
}

export function readComposeEnv(env: RawEnv = process.env): ComposeEnv {
  const e = readEnv(
    {
      dockerHost: str("DOCKER_HOST"),
      composeDir: str("ORDERFLOW_COMPOSE_DIR").default(path.join(repoRoot, ".compose")),
      extraCaCerts: str("NODE_EXTRA_CA_CERTS"),
      portOffset: int("ORDERFLOW_COMPOSE_PORT_OFFSET", { min: 0, max: 40_000 }).default(0),
    },
    env,
  );
  // Our own DOCKER_HOST and DOCKER_CONFIG are given to each docker call explicitly.
  const { DOCKER_HOST: _host, DOCKER_CONFIG: _config, ...inherited } = process.env;
  return {
    dockerHost: e.dockerHost === "" ? undefined : e.dockerHost,
    composeDir: path.resolve(e.composeDir),
    portOffset: e.portOffset,
    extraCaCerts: e.extraCaCerts === "" ? undefined : e.extraCaCerts,
    isRoot: typeof process.getuid === "function" && process.getuid() === 0,
    inherited,
  };
}

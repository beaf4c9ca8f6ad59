// Where `pnpm compose` keeps what it makes, all under one git-ignored folder (.compose by default).
import path from "node:path";

export interface ComposeLayout {
  dir: string;
  /** The engine it starts when none runs: socket, pidfile, data root, exec root, log. */
  engine: { dir: string; socket: string; pidfile: string; dataRoot: string; execRoot: string; log: string };
  /** DOCKER_CONFIG of every docker call: its cli-plugins/ holds Compose v2 when the system has none. */
  dockerConfig: string;
  /** apt's lists and cache for the Debian trixie entry, apart from the system's. */
  apt: { sourceParts: string; lists: string; cache: string; debs: string };
  /** debootstrap root filesystems, by Debian release. */
  rootfs: (release: string) => string;
  /** npm tarballs and other downloads reused by later builds. */
  cache: string;
  /** The override file that swaps images for local ones (written at every up). */
  overrideFile: string;
}

export function composeLayout(dir: string): ComposeLayout {
  const engineDir = path.join(dir, "engine");
  return {
    dir,
    engine: {
      dir: engineDir,
      socket: path.join(engineDir, "docker.sock"),
      pidfile: path.join(engineDir, "dockerd.pid"),
      dataRoot: path.join(engineDir, "data"),
      execRoot: path.join(engineDir, "exec"),
      log: path.join(engineDir, "dockerd.log"),
    },
    dockerConfig: path.join(dir, "docker-config"),
    apt: {
      sourceParts: path.join(dir, "apt", "sources.list.d"),
      lists: path.join(dir, "apt", "lists"),
      cache: path.join(dir, "apt", "cache"),
      debs: path.join(dir, "apt", "debs"),
    },
    rootfs: (release) => path.join(dir, "rootfs", release),
    cache: path.join(dir, "cache"),
    overrideFile: path.join(dir, "docker-compose.local-images.yml"),
  };
}

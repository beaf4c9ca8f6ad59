// `pnpm compose down [--volumes] [--engine]`: removes this project's containers and network (and its
// volumes with --volumes) through compose, then stops the engine only if `pnpm compose` started it.
import type { ComposeContext } from "./context.ts";
import { stopOwnEngine } from "./engine.ts";

/** Every profile of the file: compose's down leaves the containers of a profile not named in place. */
const allProfiles = (ctx: ComposeContext): string[] => [
  ...new Set(Object.values(ctx.project.services).flatMap((s) => s.profiles ?? [])),
];

export async function down(ctx: ComposeContext, { volumes }: { volumes: boolean }): Promise<void> {
  const profiles = allProfiles(ctx).flatMap((p) => ["--profile", p]);
  const code = await ctx.docker.stream(
    ctx.composeArgs([...profiles, "down", ...(volumes ? ["--volumes"] : [])]),
    { timeoutMs: 300_000 },
  );
  if (code !== 0) throw new Error(`docker compose down failed (exit ${code})`);
}

export async function stopEngine(
  ctx: ComposeContext | undefined,
  layout: ComposeContext["layout"],
  log: (m: string) => void,
) {
  if (ctx && ctx.engine.kind !== "own") {
    log(`the engine at ${ctx.engine.host} was not started by pnpm compose: left running`);
    return;
  }
  if (!(await stopOwnEngine(layout, log))) log("no engine of pnpm compose's runs");
}

// `pnpm compose logs [service] [-n N] [-f]`: compose's own logs of the project's containers.
import type { ComposeContext } from "./context.ts";

export function logs(
  ctx: ComposeContext,
  service: string | undefined,
  tail: number,
  follow: boolean,
): Promise<number> {
  return ctx.docker.stream(
    ctx.composeArgs([
      "logs",
      "--tail",
      String(tail),
      ...(follow ? ["--follow"] : []),
      ...(service ? [service] : []),
    ]),
  );
}

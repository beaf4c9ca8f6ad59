// `pnpm compose up`: engine, Compose, images, then `docker compose up -d` of the core services, and a
// wait until every long-running container is healthy and every one-shot has exited 0.
import { waitFor } from "../proc.ts";
import type { ComposeContext } from "./context.ts";
import { socketPath } from "./docker.ts";
import { SYSTEM_SOCKET } from "./engine.ts";
import { prepareImages } from "./images.ts";
import { writeOverride } from "./override.ts";
import { busyPorts, hostPortsOf, PortInUseError, withOffset } from "./ports.ts";
import { coreServices, publishedPorts } from "./project.ts";
import { type Scale, scaleArgs } from "./scale.ts";
import { type ComposeStatus, composeStatus, problems, projectContainers } from "./status.ts";

export class NotHealthyError extends Error {}

/** The host ports this project's running containers publish (a warm up finds its own ports taken). */
async function ownPorts(ctx: ComposeContext): Promise<Set<number>> {
  const label = `label=com.docker.compose.project=${ctx.project.name}`;
  const r = await ctx.docker.run(["ps", "--filter", label, "--format", "{{.Ports}}"], 30_000);
  return hostPortsOf(r.stdout);
}

export async function up(
  ctx: ComposeContext,
  env: Record<string, string>,
  { rebuild, timeoutS, scale = {} }: { rebuild: boolean; timeoutS: number; scale?: Scale },
): Promise<{ seconds: number; status: ComposeStatus }> {
  const started = Date.now();
  const services = coreServices(ctx.project);
  const ports = publishedPorts(ctx.project, services).map((p) => withOffset(p, ctx.env.portOffset));
  const busy = await busyPorts(ports, await ownPorts(ctx));
  if (busy.length)
    throw new PortInUseError(
      `port in use: ${busy.map((p) => `${p.host}:${p.published} (${p.service})`).join(", ")}; stop what listens there, or move this stack's ports with ORDERFLOW_COMPOSE_PORT_OFFSET=<n>`,
    );

  const images = await prepareImages(ctx, services, { rebuild });
  const engineSocket = socketPath(ctx.engine.host);
  writeOverride(ctx.layout.overrideFile, {
    images,
    ports,
    portOffset: ctx.env.portOffset,
    engineSocket: engineSocket && engineSocket !== SYSTEM_SOCKET ? engineSocket : undefined,
    socketServices: services.filter((s) =>
      (ctx.project.services[s]?.volumes ?? []).some((v) => v.split(":")[1] === SYSTEM_SOCKET),
    ),
  });

  const scaled = scaleArgs(scale);
  ctx.log(`docker compose up -d ${[...scaled, ...services].join(" ")}`);
  // With -d, compose still starts each container only once its depends_on conditions hold; a failed one
  // ends it with an error naming the container. Either way the wait below says which service is not ready.
  const code = await ctx.docker.stream(ctx.composeArgs(["up", "-d", "--no-build", ...scaled, ...services]), {
    timeoutMs: timeoutS * 1000,
  });
  const deadline = started + timeoutS * 1000;
  let last: string[] = [];
  try {
    await waitFor(
      "every container to be healthy",
      async () => {
        const containers = await projectContainers(ctx);
        last = problems(ctx, services, containers);
        // A one-shot that failed never turns healthy: stop waiting at once.
        if (last.some((p) => /exited with [1-9]/.test(p)) || (code !== 0 && last.length))
          throw new NotHealthyError();
        return last.length === 0;
      },
      { timeoutMs: Math.max(5_000, deadline - Date.now()), intervalMs: 2_000 },
    );
  } catch {
    throw new NotHealthyError(`not healthy: ${last.join("; ")}`);
  }
  return { seconds: (Date.now() - started) / 1000, status: await composeStatus(ctx, env) };
}

// The project's containers as the engine sees them (by compose's project label, so it works without a
// valid .env), and what `pnpm compose status` prints.
import type { ComposeContext } from "./context.ts";
import { withOffset } from "./ports.ts";
import { coreServices, isOneShot, publishedPorts } from "./project.ts";

export interface ContainerStatus {
  service: string;
  name: string;
  /** created, running, restarting, exited, ... */
  state: string;
  /** healthy, unhealthy, starting, or "none" for a container without a health check. */
  health: string;
  exitCode: number;
}

export interface ComposeStatus {
  project: string;
  engine: { host: string; kind: string };
  healthy: boolean;
  /** Each started service that is not where `up` needs it, and why. */
  problems: string[];
  containers: ContainerStatus[];
  urls: Record<string, string>;
  control: { token: string | undefined };
}

interface Inspected {
  Name: string;
  Config: { Labels: Record<string, string> };
  State: { Status: string; ExitCode: number; Health?: { Status: string } };
}

export async function projectContainers(ctx: ComposeContext): Promise<ContainerStatus[]> {
  const label = `com.docker.compose.project=${ctx.project.name}`;
  const ids = (await ctx.docker.run(["ps", "-aq", "--filter", `label=${label}`], 30_000)).stdout
    .split(/\s+/)
    .filter(Boolean);
  if (!ids.length) return [];
  const r = await ctx.docker.run(["inspect", ...ids], 30_000);
  if (r.code !== 0) return [];
  return (JSON.parse(r.stdout) as Inspected[])
    .map((c) => ({
      service: c.Config.Labels["com.docker.compose.service"] ?? "",
      name: c.Name.replace(/^\//, ""),
      state: c.State.Status,
      health: c.State.Health?.Status ?? "none",
      exitCode: c.State.ExitCode,
    }))
    .sort((a, b) => a.service.localeCompare(b.service) || a.name.localeCompare(b.name));
}

/** Why `service` is not ready, or undefined: long-running ones healthy (or running, with no check), one-shots exited 0. */
export function problemOf(
  service: string,
  oneShot: boolean,
  containers: ContainerStatus[],
): string | undefined {
  const mine = containers.filter((c) => c.service === service);
  if (!mine.length) return `${service}: no container`;
  for (const c of mine) {
    if (oneShot) {
      if (c.state === "exited" && c.exitCode !== 0)
        return `${service}: exited with ${c.exitCode} (pnpm compose logs ${service})`;
      if (c.state !== "exited") return `${service}: ${c.state}, not finished yet`;
    } else if (c.state !== "running")
      return `${service}: ${c.state}${c.state === "exited" ? ` with ${c.exitCode}` : ""}`;
    else if (c.health !== "healthy" && c.health !== "none") return `${service}: ${c.health}`;
  }
  return undefined;
}

export function problems(ctx: ComposeContext, services: string[], containers: ContainerStatus[]): string[] {
  return services.flatMap((s) => problemOf(s, isOneShot(ctx.project.services[s] ?? {}), containers) ?? []);
}

// The gateway publishes each service's API on the service's own port (haproxy.cfg's frontends).
const GATEWAY_FRONTENDS: Record<number, string> = { 3001: "order", 3002: "inventory", 3003: "points" };

/** The services' URLs on the host, from the ports docker-compose.yml publishes (and the offset). */
export function serviceUrls(ctx: ComposeContext): Record<string, string> {
  const ports = publishedPorts(ctx.project, ["gateway", "control"]).map((p) =>
    withOffset(p, ctx.env.portOffset),
  );
  const urls: Record<string, string> = {};
  for (const p of ports) {
    const name = p.service === "gateway" ? GATEWAY_FRONTENDS[p.target] : p.service;
    if (name) urls[name] ??= `http://${p.host === "0.0.0.0" ? "127.0.0.1" : p.host}:${p.published}`;
  }
  return urls;
}

export async function composeStatus(
  ctx: ComposeContext,
  env: Record<string, string>,
): Promise<ComposeStatus> {
  const containers = await projectContainers(ctx);
  const found = problems(ctx, coreServices(ctx.project), containers);
  return {
    project: ctx.project.name,
    engine: { host: ctx.engine.host, kind: ctx.engine.kind },
    healthy: found.length === 0,
    problems: found,
    containers,
    urls: serviceUrls(ctx),
    control: { token: env.CONTROL_TOKEN },
  };
}

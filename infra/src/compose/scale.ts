// `pnpm compose up --scale order=2`: how many containers of a service compose runs. Only a service that
// publishes no host port can run several (the gateway is their entry point), and no more than the
// gateway's server-template has slots for.
import type { Project } from "./project.ts";
import { publishedPorts } from "./project.ts";

/** The gateway's slots per backend (infra/compose/gateway/haproxy.cfg, `server-template NAME 8`). */
export const MAX_SCALE = 8;

export type Scale = Record<string, number>;

export function parseScale(specs: readonly string[], project: Project, fail: (m: string) => never): Scale {
  const scale: Scale = {};
  for (const spec of specs) {
    const m = /^([a-z0-9-]+)=(\d+)$/.exec(spec);
    if (!m) return fail(`--scale takes SERVICE=N, got "${spec}"`);
    const [, service = "", count = ""] = m;
    const n = Number(count);
    if (!project.services[service]) return fail(`--scale: no service "${service}" in docker-compose.yml`);
    if (publishedPorts(project, [service]).length > 0)
      return fail(`--scale: ${service} publishes a host port, so only one of it can run`);
    if (n < 1 || n > MAX_SCALE) return fail(`--scale ${service}: N must be from 1 to ${MAX_SCALE}, got ${n}`);
    scale[service] = n;
  }
  return scale;
}

/** `docker compose up`'s flags for it. */
export const scaleArgs = (scale: Scale): string[] =>
  Object.entries(scale).flatMap(([service, n]) => ["--scale", `${service}=${n}`]);

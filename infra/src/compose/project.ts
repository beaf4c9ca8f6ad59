// What `pnpm compose` reads from docker-compose.yml: the core services (those of no profile, which boot
// without the monitoring containers), their images, published ports and kinds (long-running or one-shot).
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";

export const COMPOSE_FILE = "docker-compose.yml";

/**
 * The profile of the monitoring containers (Prometheus, Alertmanager, the exporters, Grafana, Jaeger):
 * `docker compose --profile monitoring up` adds them; a plain `up` and `pnpm compose up` start the core.
 */
export const MONITORING_PROFILE = "monitoring";

export interface ServiceDef {
  image?: string;
  build?: unknown;
  profiles?: string[];
  restart?: string;
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: string[] | string };
}

export interface Project {
  name: string;
  services: Record<string, ServiceDef>;
  /** The text, for the variables it requires. */
  text: string;
}

export function readProject(repoRoot: string): Project {
  const text = fs.readFileSync(path.join(repoRoot, COMPOSE_FILE), "utf8");
  const doc = parse(text, { merge: true }) as { name?: string; services?: Record<string, ServiceDef> };
  return { name: doc.name ?? path.basename(repoRoot), services: doc.services ?? {}, text };
}

/** The services of no profile: what `docker compose up` and `pnpm compose up` start. */
export const coreServices = (p: Project): string[] =>
  Object.entries(p.services)
    .filter(([, s]) => !s.profiles?.length)
    .map(([name]) => name);

/** The services a profile adds (`monitoring`, `load`). */
export const profileServices = (p: Project, profile: string): string[] =>
  Object.entries(p.services)
    .filter(([, s]) => s.profiles?.includes(profile))
    .map(([name]) => name);

/** A one-shot (restart "no") runs to completion; every other container must end up healthy. */
export const isOneShot = (s: ServiceDef): boolean => s.restart === "no";

export interface PublishedPort {
  service: string;
  host: string;
  published: number;
  target: number;
}

/** "127.0.0.1:17432:5432" of each service, as written (before any offset). */
export function publishedPorts(p: Project, services: string[]): PublishedPort[] {
  return services.flatMap((service) =>
    (p.services[service]?.ports ?? []).flatMap((spec) => {
      const m = /^(?:([\d.]+):)?(\d+):(\d+)(?:\/tcp)?$/.exec(spec);
      if (!m) return [];
      return [{ service, host: m[1] ?? "0.0.0.0", published: Number(m[2]), target: Number(m[3]) }];
    }),
  );
}

/** Names of the variables the file requires (`${NAME:?...}`): compose refuses to start without them. */
export const requiredVariables = (p: Project): string[] => [
  ...new Set([...p.text.matchAll(/\$\{([A-Z][A-Z0-9_]*):\?/g)].map((m) => m[1] as string)),
];

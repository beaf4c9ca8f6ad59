// The override file `pnpm compose` passes after docker-compose.yml: it swaps the `image:` of services
// whose official image is replaced by a local one, and, only where this engine needs it, moves published
// ports by an offset and mounts this engine's socket in place of /var/run/docker.sock.
import fs from "node:fs";
import type { PublishedPort } from "./project.ts";

export interface OverrideInput {
  /** service -> local image. */
  images: Record<string, string>;
  /** Every published port of the services started, with its offset applied (moved only when offset > 0). */
  ports: PublishedPort[];
  portOffset: number;
  /** Socket of the engine, when it is not /var/run/docker.sock: the control service's Docker backend. */
  engineSocket?: string;
  /** The services that mount the engine's socket. */
  socketServices: string[];
}

export interface ServiceOverride {
  image?: string;
  /** Replaces the base file's list (compose 2.24+'s `!override` tag) instead of appending to it. */
  ports?: string[];
  /** Merged by target path: an entry for /var/run/docker.sock replaces the base file's. */
  volumes?: string[];
}

export function overrideServices(input: OverrideInput): Record<string, ServiceOverride> {
  const services: Record<string, ServiceOverride> = {};
  const entry = (s: string): ServiceOverride => {
    services[s] ??= {};
    return services[s];
  };
  for (const [service, image] of Object.entries(input.images)) entry(service).image = image;
  if (input.portOffset > 0)
    for (const p of input.ports) {
      const o = entry(p.service);
      o.ports = [...(o.ports ?? []), `${p.host}:${p.published}:${p.target}`];
    }
  if (input.engineSocket)
    for (const s of input.socketServices)
      entry(s).volumes = [`${input.engineSocket}:/var/run/docker.sock:ro`];
  return services;
}

/** YAML by hand: JSON strings are YAML scalars, and the `!override` tag needs no YAML library support. */
export function overrideText(input: OverrideInput): string {
  const q = (v: string) => JSON.stringify(v);
  const lines = [
    "# Written by `pnpm compose up` at every up; docker-compose.yml stays as it is.",
    "services:",
  ];
  for (const [name, o] of Object.entries(overrideServices(input))) {
    lines.push(`  ${q(name)}:`);
    if (o.image) lines.push(`    image: ${q(o.image)}`);
    if (o.ports) lines.push("    ports: !override", ...o.ports.map((p) => `      - ${q(p)}`));
    if (o.volumes) lines.push("    volumes:", ...o.volumes.map((v) => `      - ${q(v)}`));
  }
  if (lines.length === 2) lines[1] = "services: {}";
  return `${lines.join("\n")}\n`;
}

export function writeOverride(file: string, input: OverrideInput): void {
  fs.writeFileSync(file, overrideText(input));
}

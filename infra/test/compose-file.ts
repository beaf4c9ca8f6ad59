// docker-compose.yml as the compose tests read it: YAML merge keys applied (`<<: *app`), no interpolation,
// so `${VAR:?...}` stays as written.
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { repoRoot } from "../src/index.ts";

export type ComposeService = {
  image?: string;
  build?: unknown;
  profiles?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test?: string[] | string };
  restart?: string;
  entrypoint?: string[];
  command?: string[];
  depends_on?: Record<string, { condition?: string }>;
  stop_grace_period?: string;
};

export type ComposeFile = {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
};

export const readRepoFile = (rel: string): string => fs.readFileSync(path.join(repoRoot, rel), "utf8");

export const composeText = (): string => readRepoFile("docker-compose.yml");

export const readCompose = (text = composeText()): ComposeFile => parse(text, { merge: true }) as ComposeFile;

export function composeService(compose: ComposeFile, name: string): ComposeService {
  const s = compose.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
}

/** The containers that run the application image (services and relays). */
export const appServices = (compose: ComposeFile): [string, ComposeService][] =>
  Object.entries(compose.services).filter(([, s]) => s.image === "orderflow-app");

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** A compose duration ("30s", "1m30s", "1500ms") in milliseconds. */
export function durationMs(value: string): number {
  if (!/^(\d+(\.\d+)?(us|ms|s|m|h))+$/.test(value)) throw new Error(`"${value}" is not a compose duration`);
  return [...value.matchAll(/(\d+(?:\.\d+)?)(us|ms|s|m|h)/g)].reduce(
    (sum, [, n, unit]) => sum + Number(n) * (UNIT_MS[unit ?? ""] ?? Number.NaN),
    0,
  );
}

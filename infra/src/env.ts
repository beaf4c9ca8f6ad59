// The only reader of the environment for the local stack.
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface InfraEnv {
  /** Folder holding every part's data, logs, PIDs and generated secrets (git-ignored). */
  stackDir: string;
  /** Added to every port, so a second stack (another checkout, a parallel CI job) can run beside this one. */
  portOffset: number;
  isRoot: boolean;
  /** Local paths of Debian's programs; overridable for unusual installs. */
  postgresBinDir: string | undefined;
  rabbitmqBinDir: string;
  /** Extra environment for the supervised services and relays (JSON object), e.g. the fault lab's switches. */
  appsExtraEnv: Record<string, string>;
}

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 40_000) {
    throw new Error(`${name} must be an integer between 0 and 40000, got "${raw}"`);
  }
  return n;
}

function jsonObject(name: string): Record<string, string> {
  const raw = process.env[name];
  if (!raw) return {};
  const v = JSON.parse(raw) as unknown;
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new Error(`${name} must be a JSON object`);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
}

export function readInfraEnv(): InfraEnv {
  return {
    stackDir: path.resolve(process.env.ORDERFLOW_STACK_DIR || path.join(repoRoot, ".stack")),
    portOffset: int("ORDERFLOW_PORT_OFFSET", 0),
    isRoot: typeof process.getuid === "function" && process.getuid() === 0,
    postgresBinDir: process.env.ORDERFLOW_PG_BIN_DIR || undefined,
    rabbitmqBinDir: process.env.ORDERFLOW_RABBITMQ_BIN_DIR || "/usr/lib/rabbitmq/bin",
    appsExtraEnv: jsonObject("ORDERFLOW_APPS_ENV"),
  };
}

/** The environment child processes inherit (PATH, locale...); passed on, never interpreted elsewhere. */
export const inheritedEnv = (): NodeJS.ProcessEnv => process.env;

// The only reader of the environment for the local stack (see .env.example).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { int, type RawEnv, readEnv, str } from "@orderflow/config";

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
}

export function readInfraEnv(env: RawEnv = process.env): InfraEnv {
  const e = readEnv(
    {
      stackDir: str("ORDERFLOW_STACK_DIR").default(path.join(repoRoot, ".stack")),
      portOffset: int("ORDERFLOW_PORT_OFFSET", { min: 0, max: 40_000 }).default(0),
      postgresBinDir: str("ORDERFLOW_PG_BIN_DIR"),
      rabbitmqBinDir: str("ORDERFLOW_RABBITMQ_BIN_DIR").default("/usr/lib/rabbitmq/bin"),
    },
    env,
  );
  return {
    ...e,
    stackDir: path.resolve(e.stackDir),
    isRoot: typeof process.getuid === "function" && process.getuid() === 0,
  };
}

/**
 * The OpenTelemetry SDK's standard variables (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_SAMPLER, ...) given
 * to `pnpm stack up`, which the stack passes on to every service and relay.
 */
export function otelEnv(env: RawEnv = process.env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[0].startsWith("OTEL_") && e[1] !== undefined),
  );
}

/** The environment child processes inherit (PATH, locale...); passed on, never interpreted elsewhere. */
export const inheritedEnv = (): NodeJS.ProcessEnv => process.env;

// readEnv: the one reader of configuration. Each process's env.ts calls it with a schema of EnvVars and
// passes process.env in (the default here), so nothing else in a process reads the environment.
import type { EnvVar } from "./env-var.ts";

export type RawEnv = Record<string, string | undefined>;

// biome-ignore lint/suspicious/noExplicitAny: any input type; only the output type matters here
export type EnvSchema = Record<string, EnvVar<any, unknown>>;

/** The typed result of a schema: each key's EnvVar output (`T`, or `T | undefined` when optional). */
export type EnvValues<S extends EnvSchema> = { [K in keyof S]: S[K]["_out"] };

/** Every bad variable at once, each with why: `problems` holds one line per variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
    this.name = "ConfigError";
  }
}

// A value echoed in an error may be a URL with a password in it.
const masked = (v: string) => v.replace(/\/\/([^:/@\s]+):[^@\s]*@/g, "//$1:***@");

/**
 * Reads and checks every variable of `schema` from `raw`. Returns the typed values, or throws one
 * ConfigError naming every bad variable and why, e.g. `ORDER_PORT must be an integer 0-65535, got "abc";
 * ORDER_DATABASE_URL is required (see .env.example)`.
 */
export function readEnv<S extends EnvSchema>(schema: S, raw: RawEnv = process.env): EnvValues<S> {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(schema)) {
    const name = v.variables.find((n) => raw[n] !== undefined && raw[n] !== "");
    if (name === undefined) {
      if (v.missing.kind === "required") problems.push(`${v.label} is required (see .env.example)`);
      else out[key] = v.missing.kind === "default" ? v.missing.value : undefined;
      continue;
    }
    const text = raw[name] as string;
    const r = v.schema.safeParse(text);
    if (r.success) out[key] = r.data;
    else
      problems.push(
        `${name} ${r.error.issues[0]?.message ?? "is invalid"}, got ${JSON.stringify(masked(text))}`,
      );
  }
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);
  return out as EnvValues<S>;
}

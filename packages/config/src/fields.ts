// The field helpers every env.ts uses. Each checks the text of one variable and says, on failure, what
// it must be: readEnv adds the variable's name and the value it got.
import { LOG_LEVELS, type LogLevel } from "@orderflow/logging";
import { z } from "zod";
import { type EnvVar, envVar, type Names, textSchema } from "./env-var.ts";

export { LOG_LEVELS, type LogLevel };

interface Bounds {
  min?: number;
  max?: number;
}

function range({ min, max }: Bounds): string {
  if (min !== undefined && max !== undefined) return ` ${min}-${max}`;
  if (min !== undefined) return ` >= ${min}`;
  if (max !== undefined) return ` <= ${max}`;
  return "";
}

const within = (n: number, { min, max }: Bounds) =>
  (min === undefined || n >= min) && (max === undefined || n <= max);

/** Any text. */
export const str = (name: Names): EnvVar<string> =>
  envVar(
    name,
    textSchema("must be text", (t) => t),
  );

/** Text that must be set: "NAME is required (see .env.example)". */
export const required = (name: Names): EnvVar<string, string> => str(name).required();

/** A secret token: 16-256 printable ASCII characters, no spaces ("must be a token of 16+ characters"). */
export const token = (name: Names): EnvVar<string> =>
  envVar(
    name,
    textSchema("must be a token of 16-256 printable characters without spaces", (t) =>
      /^[\x21-\x7E]{16,256}$/.test(t) ? t : undefined,
    ),
  );

/** An integer within bounds: "must be an integer 0-65535". */
export function int(name: Names, bounds: Bounds = {}): EnvVar<number> {
  return envVar(
    name,
    textSchema(`must be an integer${range(bounds)}`, (t) => {
      const n = Number(t.trim());
      return /^[+-]?\d+$/.test(t.trim()) && Number.isSafeInteger(n) && within(n, bounds) ? n : undefined;
    }),
  );
}

/** A TCP port, 0-65535. */
export const port = (name: Names): EnvVar<number> => int(name, { min: 0, max: 65535 });

/** A finite number within bounds (fractions allowed). */
export function num(name: Names, bounds: Bounds = {}): EnvVar<number> {
  return envVar(
    name,
    textSchema(`must be a number${range(bounds)}`, (t) => {
      const n = Number(t.trim());
      return t.trim() !== "" && Number.isFinite(n) && within(n, bounds) ? n : undefined;
    }),
  );
}

/** A URL; `protocols` like ["amqp:", "amqps:"] narrows it. */
export function url(name: Names, protocols?: readonly string[]): EnvVar<string> {
  const what = protocols ? `a URL (${protocols.join(" or ")})` : "a URL";
  return envVar(
    name,
    textSchema(`must be ${what}`, (t) => {
      try {
        const u = new URL(t);
        return !protocols || protocols.includes(u.protocol) ? t : undefined;
      } catch {
        return undefined;
      }
    }),
  );
}

/** 1/0/true/false. */
export const bool = (name: Names): EnvVar<boolean> =>
  envVar(
    name,
    textSchema("must be true or false (or 1 or 0)", (t) => {
      const v = t.trim().toLowerCase();
      return v === "1" || v === "true" ? true : v === "0" || v === "false" ? false : undefined;
    }),
  );

/** One of a fixed set of words. */
export function oneOf<const V extends string>(name: Names, values: readonly V[]): EnvVar<V> {
  return envVar(
    name,
    textSchema(`must be one of ${values.join(", ")}`, (t) =>
      (values as readonly string[]).includes(t.trim()) ? (t.trim() as V) : undefined,
    ),
  );
}

/** pino's levels: fatal, error, warn, info, debug, trace, silent. Defaults to LOG_LEVEL, "info". */
export const logLevel = (name: Names = "LOG_LEVEL"): EnvVar<LogLevel, LogLevel> =>
  oneOf(name, LOG_LEVELS).default("info");

/**
 * A comma-separated list (blanks dropped): "a, b,c" -> ["a", "b", "c"]. With `item`, each entry is
 * checked by that field's rule, e.g. list("OUTBOX_BACKOFF_MS", num("", { min: 0 })).
 */
export function list(name: Names): EnvVar<string[]>;
export function list<T>(name: Names, item: EnvVar<T, unknown>): EnvVar<T[]>;
export function list<T>(name: Names, item?: EnvVar<T, unknown>): EnvVar<T[] | string[]> {
  const entries = (t: string) =>
    t
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  const itemSchema = item?.schema;
  if (!itemSchema) return envVar(name, textSchema("must be a comma-separated list", entries));
  return envVar(
    name,
    z.string().transform((t, ctx) => {
      const out: T[] = [];
      for (const e of entries(t)) {
        const r = itemSchema.safeParse(e);
        if (!r.success) {
          const why = r.error.issues[0]?.message ?? "is invalid";
          ctx.addIssue({ code: "custom", message: `must be a comma-separated list; entry "${e}" ${why}` });
          return z.NEVER;
        }
        out.push(r.data);
      }
      return out;
    }),
  );
}

// One environment variable: its name (or names, the first one set wins), a zod schema for its text, and
// what happens when it is unset: undefined (the default), a default value, or an error.
import { z } from "zod";

type Missing<T> = { kind: "optional" } | { kind: "default"; value: T } | { kind: "required" };

/**
 * `EnvVar<T>` reads to `T | undefined`; `.default(v)` and `.required()` make it read to `T`. An empty
 * value counts as unset, as in docker compose's `VAR=` lines.
 */
export class EnvVar<T, Out = T | undefined> {
  declare readonly _out: Out;

  constructor(
    readonly variables: readonly [string, ...string[]],
    readonly schema: z.ZodType<T, string>,
    readonly missing: Missing<T> = { kind: "optional" },
  ) {}

  /** The value when the variable is unset or empty. */
  default(value: T): EnvVar<T, T> {
    return new EnvVar<T, T>(this.variables, this.schema, { kind: "default", value });
  }

  /** Unset or empty is an error: "NAME is required (see .env.example)". */
  required(): EnvVar<T, T> {
    return new EnvVar<T, T>(this.variables, this.schema, { kind: "required" });
  }

  /** The variables' names as error messages show them: "OUTBOX_DATABASE_URL (or DATABASE_URL)". */
  get label(): string {
    const [first, ...rest] = this.variables;
    return rest.length === 0 ? first : `${first} (or ${rest.join(" or ")})`;
  }
}

export type Names = string | readonly [string, ...string[]];

const names = (n: Names): readonly [string, ...string[]] => (typeof n === "string" ? [n] : n);

/** Any zod schema over the variable's text; the first issue's message is the one reported. */
export function envVar<T>(name: Names, schema: z.ZodType<T, string>): EnvVar<T> {
  return new EnvVar(names(name), schema);
}

/** A schema over text that fails with exactly `message` (the raw value is appended by readEnv). */
export function textSchema<T>(message: string, parse: (text: string) => T | undefined): z.ZodType<T, string> {
  return z.string().transform((text, ctx) => {
    const v = parse(text);
    if (v === undefined) {
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    }
    return v;
  });
}

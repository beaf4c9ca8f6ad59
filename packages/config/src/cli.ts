// parseCli: every command line reads its arguments with node:util parseArgs through this, so a bad flag,
// a bad value or a missing argument stops the command at once with the error and its usage (exit 2).
import { type ParseArgsConfig, parseArgs } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

export interface CliSpec<O extends Options> {
  /** The whole usage text, printed after every error. */
  usage: string;
  options?: O;
  /** How many positional arguments are allowed (default none). */
  positionals?: { min?: number; max?: number };
}

type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

export interface ParsedCli<O extends Options> {
  values: Parsed<O>["values"];
  positionals: string[];
  /** Stops with `message` and the usage. */
  fail(message: string): never;
  /** Runs a conversion of an argument; whatever it throws becomes a usage failure. */
  check<T>(convert: () => T): T;
}

/** A bad flag, value or argument; `usage` is the command's usage text. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

/** parseArgs with the spec's options; throws UsageError (use this where a caller maps errors to codes). */
export function parseArgv<const O extends Options>(spec: CliSpec<O>, args: readonly string[]): ParsedCli<O> {
  const fail = (message: string): never => {
    throw new UsageError(message, spec.usage);
  };
  // `pnpm <script> -- args` passes the "--" on: it separates pnpm's flags, not ours.
  const argv = args[0] === "--" ? args.slice(1) : [...args];
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({
      args: argv,
      options: (spec.options ?? {}) as O,
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    return fail((e as Error).message);
  }
  const { min = 0, max = 0 } = spec.positionals ?? {};
  const n = parsed.positionals.length;
  if (n < min) fail(min === 1 ? "an argument is missing" : `expected at least ${min} arguments, got ${n}`);
  if (n > max)
    fail(`unexpected argument${n - max > 1 ? "s" : ""}: ${parsed.positionals.slice(max).join(" ")}`);
  return {
    values: parsed.values,
    positionals: parsed.positionals,
    fail,
    check: (convert) => {
      try {
        return convert();
      } catch (e) {
        return fail((e as Error).message);
      }
    },
  };
}

/** Prints "error: <message>", a blank line and the usage to stderr, and exits 2. */
export function exitWithUsage(message: string, usage: string): never {
  process.stderr.write(`error: ${message}\n\n${usage}\n`);
  process.exit(2);
}

/**
 * parseArgv for a process's own command line: on any usage error, print it with the usage and exit 2;
 * `--help` or `-h` (unless the spec defines a help option) prints the usage to stdout and exits 0.
 */
export function parseCli<const O extends Options>(spec: CliSpec<O>, args: readonly string[]): ParsedCli<O> {
  const end = args.indexOf("--", args[0] === "--" ? 1 : 0);
  const own = end < 0 ? args : args.slice(0, end);
  if (!spec.options?.help && (own.includes("--help") || own.includes("-h"))) {
    process.stdout.write(`${spec.usage}\n`);
    process.exit(0);
  }
  const onError = (e: unknown): never => {
    if (e instanceof UsageError) return exitWithUsage(e.message, spec.usage);
    throw e;
  };
  let p: ParsedCli<O>;
  try {
    p = parseArgv(spec, args);
  } catch (e) {
    return onError(e);
  }
  return {
    ...p,
    fail: (message) => exitWithUsage(message, spec.usage),
    check: (convert) => {
      try {
        return convert();
      } catch (e) {
        return exitWithUsage((e as Error).message, spec.usage);
      }
    },
  };
}

// What the supervised apps run, when not their own configuration: extra environment and, per app, another
// entry file (the fault lab composes services with its naive parts this way). `{}` is production.
import fs from "node:fs";
import path from "node:path";
import { repoRoot } from "../env.ts";

export interface AppVariant {
  /** Added to every app's environment. */
  env?: Record<string, string>;
  /**
   * App name ("order", "inventory", "points", "relay:order", ...) -> a repo-relative TypeScript file run
   * instead of the app's own main, with the same environment and the same supervision.
   */
  entries?: Partial<Record<string, string>>;
}

const sorted = (o: Record<string, string | undefined> | undefined): Record<string, string> =>
  Object.fromEntries(
    Object.entries(o ?? {})
      .filter((e): e is [string, string] => e[1] !== undefined)
      .sort(([a], [b]) => a.localeCompare(b)),
  );

/** The same variant with empty parts dropped and keys sorted, so equal variants compare equal. */
export function normalizeVariant(v: AppVariant): AppVariant {
  const env = sorted(v.env);
  const entries = sorted(v.entries);
  return {
    ...(Object.keys(env).length > 0 ? { env } : {}),
    ...(Object.keys(entries).length > 0 ? { entries } : {}),
  };
}

export const sameVariant = (a: AppVariant, b: AppVariant): boolean =>
  JSON.stringify(normalizeVariant(a)) === JSON.stringify(normalizeVariant(b));

/** Throws, before anything is stopped, when an entry names an unknown app or a file that is not there. */
export function checkVariant(v: AppVariant, appNames: readonly string[]): void {
  for (const [name, file] of Object.entries(sorted(v.entries))) {
    if (!appNames.includes(name))
      throw new Error(`variant entry for unknown app "${name}"; apps: ${appNames.join(", ")}`);
    const abs = path.resolve(repoRoot, file);
    if (path.isAbsolute(file) || path.relative(repoRoot, abs).startsWith("..") || !file.endsWith(".ts"))
      throw new Error(`variant entry of ${name} must be a repo-relative .ts file, got "${file}"`);
    if (!fs.existsSync(abs)) throw new Error(`variant entry of ${name}: ${file} does not exist`);
  }
}

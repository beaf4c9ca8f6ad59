// The module specifiers of emitted JavaScript, read with a regular expression: enough for tsc's output,
// which writes every import and export on its own line in a fixed shape.
import fs from "node:fs";
import path from "node:path";

const SPECIFIER =
  /(?:^|\s)(?:import|export)\s(?:[^"';]*?\sfrom\s)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;

export function importSpecifiers(source: string): string[] {
  return [...source.matchAll(SPECIFIER)].map((m) => (m[1] ?? m[2]) as string);
}

export function filesUnder(dir: string, keep: (file: string) => boolean): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : filesUnder(p, keep);
    return keep(p) ? [p] : [];
  });
}

// A template user's first commands are the package.json scripts: each file a script names must exist.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { repoRoot } from "../src/index.ts";

const manifests = [
  "package.json",
  ...fs.readdirSync(repoRoot).flatMap((top) => {
    const dir = path.join(repoRoot, top);
    if (top === "node_modules" || top.startsWith(".") || !fs.statSync(dir).isDirectory()) return [];
    const own = fs.existsSync(path.join(dir, "package.json")) ? [path.join(top, "package.json")] : [];
    const nested = fs
      .readdirSync(dir)
      .filter((sub) => fs.existsSync(path.join(dir, sub, "package.json")) && sub !== "node_modules")
      .map((sub) => path.join(top, sub, "package.json"));
    return [...own, ...nested];
  }),
];

/** Words of a script that look like a path to a source or shell file. */
const namedFiles = (script: string) =>
  script.split(/\s+/).filter((w) => /^[\w./-]+\.(ts|js|mjs|sh)$/.test(w));

describe("package.json scripts", () => {
  test("every workspace manifest is found (the walk itself is checked)", () => {
    expect(manifests).toEqual(
      expect.arrayContaining(["package.json", "services/order/package.json", "packages/outbox/package.json"]),
    );
  });

  test("every file a script names exists, relative to its package", () => {
    const missing = manifests.flatMap((m) => {
      const scripts =
        (JSON.parse(fs.readFileSync(path.join(repoRoot, m), "utf8")) as { scripts?: Record<string, string> })
          .scripts ?? {};
      return Object.entries(scripts).flatMap(([name, script]) =>
        namedFiles(script)
          .filter((f) => !fs.existsSync(path.join(repoRoot, path.dirname(m), f)))
          .map((f) => `${m} "${name}": ${f}`),
      );
    });
    expect(missing).toEqual([]);
  });
});

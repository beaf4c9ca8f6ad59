// Configuration is read in one place per process: only env.ts files (and service-runtime's env-parse.ts)
// touch process.env, and .env.example documents every variable they read.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { repoRoot } from "../src/index.ts";

const SOURCE_ROOTS = [
  "infra/src",
  "bench/src",
  "lab/src",
  "control/src",
  "load/src",
  "demo/src",
  "testkit/src",
  "packages",
  "services",
];
const ENV_FILES = /(^|\/)(env\.ts|env-parse\.ts)$/;

function sourceFiles(dir: string): string[] {
  const abs = path.join(repoRoot, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory())
      return ["node_modules", "generated", "test", "prisma", "scripts"].includes(e.name)
        ? []
        : sourceFiles(rel);
    return e.name.endsWith(".ts") ? [rel] : [];
  });
}

const files = SOURCE_ROOTS.flatMap(sourceFiles).filter(
  (f) => f.includes("/src/") || f.startsWith("infra/src"),
);

describe("configuration", () => {
  test("process.env is read only in env.ts files", () => {
    const readers = files.filter(
      (f) => !ENV_FILES.test(f) && /process\.env\b/.test(fs.readFileSync(path.join(repoRoot, f), "utf8")),
    );
    expect(readers).toEqual([]);
  });

  test(".env.example documents every variable an env.ts reads", () => {
    const documented = new Set(
      fs
        .readFileSync(path.join(repoRoot, ".env.example"), "utf8")
        .split("\n")
        .flatMap((l) => /^([A-Z][A-Z0-9_]*)=/.exec(l)?.[1] ?? []),
    );
    // The fault lab's variant processes read their own switches; no deployment sets them.
    const envFiles = files.filter((f) => ENV_FILES.test(f) && !f.startsWith("lab/src/pitfalls/"));
    expect(envFiles.length).toBeGreaterThan(5);
    const missing = envFiles.flatMap((f) => {
      const text = fs.readFileSync(path.join(repoRoot, f), "utf8");
      const names = [...text.matchAll(/"([A-Z][A-Z0-9]*_[A-Z0-9_]+)"/g)].map((m) => m[1] as string);
      const prefixed = [...text.matchAll(/`\$\{prefix\}_([A-Z0-9_]+)`/g)].flatMap((m) =>
        ["ORDER", "INVENTORY", "POINTS"].map((p) => `${p}_${m[1]}`),
      );
      return [...names, ...prefixed].filter((n) => !documented.has(n)).map((n) => `${f}: ${n}`);
    });
    expect(missing).toEqual([]);
  });
});

// Docs and comments speak of the product, never of its making: no development diary, no tracker
// numbers, no remarks about the machines it was written on. And the two front pages stay short enough to
// read before running anything. The words themselves are spelled in pieces below, so that a plain grep
// for them does not find this file.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const thisFile = path.relative(repoRoot, fileURLToPath(import.meta.url));

const SCANNED = /\.(md|ts|js|mjs|conf|yml|yaml|sh)$|^\.env\.example$/;

/** Tracked files, and new ones not yet added (git's ignore rules apply): node_modules and .git never. */
function repoFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
    cwd: repoRoot,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(out.split("\0"))]
    .filter((f) => f !== "" && f !== thisFile)
    .filter((f) => SCANNED.test(path.basename(f)))
    .filter((f) => !f.split("/").includes("node_modules") && !f.split("/").includes("migrations"))
    .filter((f) => fs.existsSync(path.join(repoRoot, f)));
}

/** Joins pieces of a sample line (see the file's first comment). */
const w = (...parts: string[]) => parts.join("");

const ORDINAL =
  "third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth";

/**
 * Each pattern names what it catches. Technical terms that contain the first word (the browser's storage
 * API, PostgreSQL's idle-in-transaction timeout) are words of their own, so its `\b` leaves them alone.
 */
const NARRATION: { name: string; pattern: RegExp }[] = [
  { name: "a work diary", pattern: /\bs[e]ssions?\b/i },
  { name: "the task's brief", pattern: /\bthe b[r]ief\b/i },
  { name: "a tracker issue number", pattern: /\bi[s]sue [0-9]+/i },
  { name: "a remark on the development machine", pattern: /\b(this|these|development) machines?\b/i },
  { name: "a remark on the development machine", pattern: /\b(this project's|the) machines (this|it) is\b/i },
  {
    name: "a remark on what the development machine cannot do",
    pattern: /\bcannot (be downloaded|be installed|be reached|run) (here|on (this|these))\b/i,
  },
  { name: "a measurement without its method", pattern: /\bmeasured here\b/i },
  { name: "a machine numbered in a diary", pattern: new RegExp(`\\b(${ORDINAL}),? (\\w+ )?machine\\b`, "i") },
];

function narrationIn(files: string[]): string[] {
  const found: string[] = [];
  for (const f of files) {
    const lines = fs.readFileSync(path.join(repoRoot, f), "utf8").split("\n");
    lines.forEach((line, i) => {
      for (const { name, pattern } of NARRATION) {
        const m = pattern.exec(line);
        if (!m) continue;
        found.push(`${f}:${i + 1}: ${name} ("${m[0]}"): ${line.trim().slice(0, 160)}`);
        break;
      }
    });
  }
  return found;
}

describe("docs and comments speak of the product, not of its making", () => {
  test("no file narrates a work diary, tracker numbers or the development machine", () => {
    const files = repoFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(narrationIn(files)).toEqual([]);
  });

  test("the patterns catch the narration and leave the technical terms alone", () => {
    const hit = (line: string) => NARRATION.some(({ pattern }) => pattern.test(line));
    for (const line of [
      w("measured in the eighteenth ses", "sion"),
      w("since is", "sue 11's work"),
      w("as the bri", "ef asks"),
      "k6 cannot be installed on these machines",
      "Prisma's native engine cannot be downloaded here",
      "on a fifteenth, slower machine",
      "Docker cannot run on this project's machines",
    ])
      expect(hit(line), line).toBe(true);
    for (const line of [
      w("ses", "sionStorage.getItem(TOKEN_KEY)"),
      w("idle_in_transaction_ses", "sion_timeout = 60000"),
      "the machine's own ceilings",
      "a brief refusal at start-up",
      "pnpm issue #15344: an optional peer is still installed",
    ])
      expect(hit(line), line).toBe(false);
  });
});

describe("the front pages stay readable", () => {
  const limits: [file: string, maxLines: number][] = [
    ["README.md", 450],
    ["bench/README.md", 300],
  ];
  test.each(limits)("%s has at most %i lines, none over 400 characters", (file, maxLines) => {
    const lines = fs.readFileSync(path.join(repoRoot, file), "utf8").replace(/\n$/, "").split("\n");
    expect(lines.length, `${file}: ${lines.length} lines`).toBeLessThanOrEqual(maxLines);
    const long = lines.flatMap((l, i) =>
      l.length > 400 ? [`${file}:${i + 1}: ${l.length} characters`] : [],
    );
    expect(long).toEqual([]);
  });
});

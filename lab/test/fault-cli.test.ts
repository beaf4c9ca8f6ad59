// `pnpm fault` and `pnpm demo` refuse bad arguments at once, with the usage, exit 2 (no stack needed).
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(root, file), ...args],
      { cwd: root, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("pnpm fault with bad arguments", () => {
  test.each([
    [["steady", "--rate", "abc"], '--rate must be a number of orders per second above 0, got "abc"'],
    [["steady", "--rate", "0"], "--rate must be a number"],
    [["steady", "--duration", "20x"], '--duration "20x" is not a k6 duration'],
    [["steady", "--duration"], "argument missing"],
    [["nonsense"], 'unknown scenario "nonsense"'],
    [["steady", "--fast"], "Unknown option '--fast'"],
    [[], "an argument is missing"],
    [["summary", "steady"], "summary takes no scenario"],
  ])("%j: exit 2, the error and the usage on stderr", async (args, message) => {
    const r = await run("lab/src/main.ts", args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain("usage: pnpm fault <scenario...|all> [--duration 20s] [--long] [--rate N]");
    expect(r.stderr).toContain("scenarios: steady, ");
    expect(r.stdout).toBe("");
  });
});

describe("pnpm demo with arguments", () => {
  test("it takes none: exit 2 with the usage", async () => {
    const r = await run("demo/src/main.ts", ["--orders", "10"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Unknown option '--orders'");
    expect(r.stderr).toContain("usage: pnpm demo");
  });
});

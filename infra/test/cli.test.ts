// `pnpm stack` refuses bad arguments at once, with the usage, exit 2 (no stack needed).
import { execFile } from "node:child_process";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { repoRoot } from "../src/index.ts";

function stack(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(repoRoot, "infra/src/cli.ts"), ...args],
      { cwd: repoRoot, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("pnpm stack with bad arguments", () => {
  test.each([
    [["nonsense"], 'unknown command "nonsense"'],
    [["chaos", "kill-node"], "chaos kill-node needs a target: <rabbit-N|leader:QUEUE>"],
    [["chaos", "kill"], "chaos kill needs a target"],
    [["chaos"], "chaos needs an <action>"],
    [["chaos", "explode"], 'unknown chaos action "explode"'],
    [["chaos", "stop-broker", "rabbit-1"], 'chaos stop-broker takes no target, got "rabbit-1"'],
    [["up", "--no-such-flag"], "Unknown option '--no-such-flag'"],
    [["status", "--json", "extra"], "unexpected argument: extra"],
    [["logs", "-n", "x"], '-n must be a whole number of lines, got "x"'],
    [["logs", "-n"], "argument missing"],
    [["redrive"], "redrive needs a <queue>"],
    [["redrive", "q", "--id"], "argument missing"],
  ])("%j: exit 2, the error and the usage on stderr", async (args, message) => {
    const r = await stack(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toMatch(/usage: pnpm stack (<command>|chaos <action>)/);
    expect(r.stdout).toBe("");
  });

  test("no command or help: the usage, exit 0", async () => {
    for (const args of [[], ["help"], ["--help"]]) {
      const r = await stack(...args);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("redrive <queue> [--id MESSAGE_ID ...]");
    }
  });
});

// `pnpm bench` refuses bad arguments at once, with the usage, exit 2 (no stack needed).
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function bench(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(root, "bench/src/main.ts"), ...args],
      { cwd: root, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("pnpm bench with bad arguments", () => {
  test.each([
    [["--only=nonsense"], 'unknown section "nonsense"'],
    [["--only=relay,nonsense,other"], 'unknown section "nonsense", "other"'],
    [["--only"], "argument missing"],
    [["--fast"], "Unknown option '--fast'"],
    [["relay"], "unexpected argument: relay"],
  ])("%j: exit 2, the error and the usage on stderr", async (args, message) => {
    const r = await bench(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain("usage: pnpm bench [--quick] [--only=SECTION[,SECTION...]]");
    expect(r.stderr).toContain("relay, claim, prisma, ceilings, peers, saga, memory, batching");
    expect(r.stdout).toBe("");
  });
});

// The outbox CLI refuses bad arguments before it reads its configuration: the usage, exit 2.
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

function outbox(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(root, "packages/outbox/src/cli.ts"), ...args],
      { cwd: root, timeout: 60_000, env: { PATH: process.env.PATH ?? "" } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("outbox CLI with bad arguments", () => {
  test.each([
    [[], "a command is missing"],
    [["nonsense"], 'unknown command "nonsense"'],
    [["redrive", "--ids", "x"], "Unknown option '--ids'"],
    [["redrive", "--event-type"], "argument missing"],
    [["stats", "extra"], "unexpected argument: extra"],
    [["migrate"], "an argument is missing"],
  ])("%j: exit 2, the error and the usage on stderr", async (args, message) => {
    const r = await outbox(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain("usage: outbox <command>");
  });

  test("good arguments without a database: the missing variable is named, exit 1", async () => {
    const r = await outbox("stats");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("OUTBOX_DATABASE_URL (or DATABASE_URL) is required");
  });
});

// The messaging CLI refuses bad arguments with the usage (exit 2) and needs MESSAGING_AMQP_URLS: it
// never reads the local stack itself (that is `pnpm stack redrive`).
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

function messaging(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(root, "packages/messaging/src/cli.ts"), ...args],
      { cwd: root, timeout: 60_000, env: { PATH: process.env.PATH ?? "" } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("messaging CLI", () => {
  test.each([
    [[], "an argument is missing"],
    [["nonsense"], 'unknown command "nonsense"'],
    [["redrive"], "redrive needs a <queue>"],
    [["redrive", "q", "--id"], "argument missing"],
    [["redrive", "q", "--all"], "Unknown option '--all'"],
  ])("%j: exit 2, the error and the usage on stderr", async (args, message) => {
    const r = await messaging(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain("usage: messaging redrive <queue> [--id MESSAGE_ID ...]");
  });

  test("without MESSAGING_AMQP_URLS it names the variable and points to pnpm stack redrive, exit 1", async () => {
    const r = await messaging("redrive", "inventory.order-events");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("MESSAGING_AMQP_URLS is required");
    expect(r.stderr).toContain("pnpm stack redrive");
  });
});

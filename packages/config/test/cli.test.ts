import { describe, expect, it } from "vitest";
import { parseArgv, UsageError } from "../src/index.ts";

const spec = {
  usage: "usage: tool <name> [--rate N] [--json]",
  options: { rate: { type: "string" }, json: { type: "boolean" }, id: { type: "string", multiple: true } },
  positionals: { min: 1, max: 1 },
} as const;

const usageError = (f: () => unknown): UsageError => {
  try {
    f();
  } catch (e) {
    if (e instanceof UsageError) return e;
    throw e;
  }
  throw new Error("no UsageError");
};

describe("parseArgv", () => {
  it("parses flags and positionals, and drops a leading -- that pnpm passes on", () => {
    const p = parseArgv(spec, ["--", "steady", "--rate", "5", "--json", "--id", "a", "--id=b"]);
    expect(p.positionals).toEqual(["steady"]);
    expect(p.values).toEqual({ rate: "5", json: true, id: ["a", "b"] });
  });

  it("refuses an unknown flag, a missing value, a missing or an extra argument, with the usage", () => {
    expect(usageError(() => parseArgv(spec, ["x", "--nonsense"])).message).toMatch(
      /Unknown option '--nonsense'/,
    );
    expect(usageError(() => parseArgv(spec, ["x", "--rate"])).message).toMatch(/argument missing/);
    expect(usageError(() => parseArgv(spec, [])).message).toBe("an argument is missing");
    expect(usageError(() => parseArgv(spec, ["x", "y"])).message).toBe("unexpected argument: y");
    expect(usageError(() => parseArgv(spec, [])).usage).toBe(spec.usage);
  });

  it("turns a failed conversion into a usage error", () => {
    const p = parseArgv(spec, ["x", "--rate", "abc"]);
    const e = usageError(() =>
      p.check(() => {
        throw new Error('--rate must be a number, got "abc"');
      }),
    );
    expect(e.message).toBe('--rate must be a number, got "abc"');
    expect(usageError(() => p.fail("bad")).usage).toBe(spec.usage);
  });
});

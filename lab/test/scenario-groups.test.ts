// `pnpm fault` takes groups beside scenario names: "pitfalls" runs each pitfall followed by its pair.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fmtDamage } from "@orderflow/load/report/html.ts";
import { describe, expect, test } from "vitest";
import { LAB_PITFALLS } from "../src/pitfalls/pitfalls.ts";
import { SCENARIOS, selectScenarios } from "../src/scenarios/index.ts";

describe("scenario selection", () => {
  test("pitfalls: every lab pitfall, each followed by its -protected pair", () => {
    const names = selectScenarios(["pitfalls"]).map((s) => s.name);
    expect(names).toEqual(LAB_PITFALLS.flatMap((p) => [p, `${p}-protected`]));
  });

  test("all: every scenario; a scenario named twice runs once, in the order given", () => {
    expect(selectScenarios(["all"])).toEqual(SCENARIOS);
    expect(selectScenarios(["steady", "no-archive", "steady"]).map((s) => s.name)).toEqual([
      "steady",
      "no-archive",
    ]);
  });

  test("an unknown name is refused with the known ones", () => {
    expect(() => selectScenarios(["nope"])).toThrow(/unknown scenario "nope"; known: steady, /);
  });

  test("every pitfall and its pair report the same damage figures", () => {
    for (const p of LAB_PITFALLS) {
      const [a, b] = selectScenarios([p, `${p}-protected`]);
      expect(a?.damage, p).toBeTypeOf("function");
      expect(b?.damage).toBe(a?.damage);
    }
  });
});

describe("damage figures in the table", () => {
  test("each figure with its name; fractions with two digits; unknown as n/a; none as a dash", () => {
    expect(fmtDamage({ "ghost units": 12, "attempts per row": 4.5, "claim pages": -1 })).toBe(
      "ghost units 12, attempts per row 4.50, claim pages n/a",
    );
    expect(fmtDamage(null)).toBe("—");
    expect(fmtDamage({})).toBe("—");
  });
});

describe("the pitfalls' docs", () => {
  const docs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../docs/faults");
  test("every pitfall has its page, and the fault lab's index links it", () => {
    const index = fs.readFileSync(path.join(docs, "README.md"), "utf8");
    for (const p of LAB_PITFALLS) {
      expect(fs.existsSync(path.join(docs, `${p}.md`)), `docs/faults/${p}.md`).toBe(true);
      expect(index).toContain(`](${p}.md)`);
    }
  });
});

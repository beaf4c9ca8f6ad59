// The default rate is decided once: steady.json's "rate" is the lab's DEFAULT_RATE, and every other
// definition offers the same (the k6 scripts read each file's own "rate", so they must agree).

import {
  DEFAULT_RATE,
  DEFINED_SCENARIOS,
  LAB_ONLY_SCENARIOS,
  loadDefinition,
  STEP_ACTIONS,
} from "@orderflow/load/scenario-definitions.ts";
import { describe, expect, it } from "vitest";
import { FAULT_ACTIONS } from "../src/faults/book.ts";
import { SCENARIOS } from "../src/scenarios/index.ts";

describe("scenario rates", () => {
  it("every definition offers the default rate", () => {
    const names = [...DEFINED_SCENARIOS, ...LAB_ONLY_SCENARIOS];
    const rates = Object.fromEntries(names.map((n) => [n, loadDefinition(n).rate]));
    expect(rates).toEqual(Object.fromEntries(names.map((n) => [n, DEFAULT_RATE])));
  });

  it("no scenario of the lab sets a rate of its own besides its definition's", () => {
    const own = SCENARIOS.filter((s) => s.rate !== undefined && s.rate !== DEFAULT_RATE).map((s) => s.name);
    expect(own).toEqual([]);
  });

  it("a scenario step names exactly the fault book's actions and the poison publisher", () => {
    expect([...STEP_ACTIONS].sort()).toEqual([...Object.keys(FAULT_ACTIONS), "publish-poison"].sort());
  });
});

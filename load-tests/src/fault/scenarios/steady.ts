// No fault: the baseline every other scenario is compared with. Numbers: scenarios/steady.json.
import { loadDefinition, scenarioNumbers } from "../definitions.ts";
import { expectNoDamage } from "../expectations.ts";
import type { Scenario } from "../scenario.ts";

const def = loadDefinition("steady");

export const steady: Scenario = {
  name: def.name,
  kind: "normal",
  ...scenarioNumbers(def),
  expect: (o) => expectNoDamage(o),
};

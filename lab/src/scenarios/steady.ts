// No fault: the baseline every other scenario is compared with. Numbers: scenarios/steady.json.
import { loadDefinition, scenarioNumbers } from "@orderflow/load/scenario-definitions.ts";
import { expectNoDamage } from "../run/expectations.ts";
import type { Scenario } from "../run/scenario.ts";

const def = loadDefinition("steady");

export const steady: Scenario = {
  name: def.name,
  kind: "normal",
  ...scenarioNumbers(def),
  expect: (o) => expectNoDamage(o),
};

// No fault: the baseline every other scenario is compared with.
import { expectNoDamage } from "../expectations.ts";
import type { Scenario } from "../scenario.ts";

export const steady: Scenario = {
  name: "steady",
  kind: "normal",
  summary: "Open-model load with no fault: the baseline.",
  expect: (o) => expectNoDamage(o),
};

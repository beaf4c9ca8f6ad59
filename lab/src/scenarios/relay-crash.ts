// The order service's relay process SIGKILLed mid-batch, again and again: rows it claimed but had not
// marked are claimed again after their lease, and published again; the inboxes absorb the copies.
// Numbers: scenarios/relay-crash.json.
import { loadDefinition, scenarioNumbers, stepsOf } from "@orderflow/load/scenario-definitions.ts";
import { expectNoDamage } from "../run/expectations.ts";
import type { Scenario } from "../run/scenario.ts";
import { killLoop } from "./consumer-crash-loop.ts";

const def = loadDefinition("relay-crash");
const steps = stepsOf(def, "kill");

export const relayCrash: Scenario = {
  name: def.name,
  kind: "normal",
  ...scenarioNumbers(def),
  fault: (ctx) => killLoop(ctx, def, steps),
  expect: (o) => expectNoDamage(o),
};

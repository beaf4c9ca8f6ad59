// PostgreSQL restarted (fast shutdown, start) under load: some API calls fail while it is down (the
// ledger holds only 2xx), consumers retry without spending attempts, relays resume from the outbox.
// Numbers: scenarios/db-restart.json.
import { loadDefinition, scenarioNumbers, stepsOf, timeScale } from "@orderflow/load/scenario-definitions.ts";
import { expectNoDamage } from "../run/expectations.ts";
import type { Scenario } from "../run/scenario.ts";

const def = loadDefinition("db-restart");
const [restart] = stepsOf(def, "restart-postgres");

export const dbRestart: Scenario = {
  name: def.name,
  kind: "normal",
  ...scenarioNumbers(def),
  fault: async (ctx) => {
    await ctx.sleep(timeScale(def, ctx.durationMs)(restart?.atS ?? 0));
    await ctx.measureInFlight("restart postgres");
    ctx.mark("fault injected: postgres restarting");
    await ctx.faults.apply({ action: "restart-postgres" });
    ctx.mark("fault healed: postgres up");
  },
  expect: (o) => expectNoDamage(o),
};

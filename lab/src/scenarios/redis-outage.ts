// Redis down: it only holds the consumers' early-skip cache, so the inbox (PostgreSQL) remains the
// truth and nothing changes but a few more inbox look-ups. Numbers: scenarios/redis-outage.json.
import {
  heldStep,
  loadDefinition,
  scenarioNumbers,
  timeScale,
} from "@orderflow/load/scenario-definitions.ts";
import { expectNoDamage } from "../run/expectations.ts";
import type { Scenario } from "../run/scenario.ts";

const def = loadDefinition("redis-outage");
const outage = heldStep(def, "stop-redis");

export const redisOutage: Scenario = {
  name: def.name,
  kind: "normal",
  ...scenarioNumbers(def),
  fault: async (ctx) => {
    const at = timeScale(def, ctx.durationMs);
    await ctx.sleep(at(outage.atS));
    await ctx.measureInFlight("stop redis");
    await ctx.faults.apply({ action: "stop-redis" });
    ctx.mark("fault injected: redis stopped");
    await ctx.sleep(at(outage.untilS) - at(outage.atS));
    await ctx.faults.apply({ action: "start-redis" });
    ctx.mark("fault healed: redis started");
  },
  expect: (o) => expectNoDamage(o),
};

// Malformed and unknown messages published straight into the work queues (as the broker admin) while
// the load runs: each must be parked with its reason, and nothing else parked or lost.
// Numbers: scenarios/poison-messages.json (when, and how many must be parked). The messages and their
// publishing: control/poison.ts, shared with the control service's publish-poison fault.

import { loadDefinition, scenarioNumbers, stepsOf, timeScale } from "@orderflow/load/scenario-definitions.ts";
import { POISON_QUEUES, POISONS_PER_QUEUE, publishPoison } from "../faults/poison.ts";
import { check, expectNoDamage } from "../run/expectations.ts";
import type { FaultContext, Scenario } from "../run/scenario.ts";

/** The fault script: `atMs` into the load (30% by default), the poison into both work queues (facts.poisonPublished). */
export async function injectPoison(ctx: FaultContext, atMs = ctx.durationMs * 0.3): Promise<void> {
  await ctx.sleep(atMs);
  await ctx.measureInFlight("publish poison");
  ctx.mark("fault injected: poison published");
  ctx.facts.poisonPublished = await publishPoison(ctx.stack, `poison-${Date.now().toString(36)}`);
  ctx.mark("fault healed: (nothing to heal)");
}

const def = loadDefinition("poison-messages");
const [publish] = stepsOf(def, "publish-poison");
// The definition says how many the k6 script must see parked; the lab publishes exactly that many.
if (def.parked !== POISON_QUEUES.length * POISONS_PER_QUEUE)
  throw new Error(
    `${def.name}.json: parked ${def.parked}, but the lab publishes ${POISON_QUEUES.length * POISONS_PER_QUEUE}`,
  );

export const poisonMessages: Scenario = {
  name: def.name,
  kind: "normal",
  ...scenarioNumbers(def),
  fault: (ctx) => injectPoison(ctx, timeScale(def, ctx.durationMs)(publish?.atS ?? 0)),
  expect: (o) => {
    const published = Number(o.facts.poisonPublished ?? 0);
    return expectNoDamage(
      o,
      [check("every poison message parked", published === def.parked, `published ${published}`)],
      published,
    );
  },
};

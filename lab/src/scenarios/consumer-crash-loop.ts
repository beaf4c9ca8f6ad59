// The inventory and points services SIGKILLed again and again (every 3 s, alternating) while they
// consume: each kill drops in-flight handlers mid-transaction and unacked deliveries; the broker
// redelivers them, the inbox turns the ones that had committed into no-ops.
// Numbers: scenarios/consumer-crash-loop.json (one repeating step per target, staggered).
import {
  type FaultStep,
  loadDefinition,
  type ScenarioDefinition,
  scenarioNumbers,
  stepsOf,
  timeScale,
} from "@orderflow/load/scenario-definitions.ts";
import { expectNoDamage } from "../run/expectations.ts";
import type { FaultContext, Scenario } from "../run/scenario.ts";

/**
 * Kills each step's target from its atS every everyS until its untilS (times of a run of the
 * definition's durationS); the steps run side by side, a target that is down is skipped.
 */
export async function killLoop(
  ctx: FaultContext,
  def: Pick<ScenarioDefinition, "durationS">,
  steps: FaultStep[],
): Promise<void> {
  const at = timeScale(def, ctx.durationMs);
  const firstMs = Math.min(...steps.map((s) => at(s.atS)));
  await ctx.sleep(firstMs);
  const started = Date.now() - firstMs;
  let kills = 0;
  ctx.mark(`fault injected: kill loop ${steps.map((s) => s.target).join(", ")}`);
  const loop = async (step: FaultStep) => {
    await ctx.sleep(at(step.atS) - firstMs);
    const until = started + at(step.untilS ?? step.atS);
    const target = step.target ?? "";
    while (Date.now() < until) {
      try {
        await ctx.measureInFlight(`kill -9 ${target}`);
        await ctx.faults.apply({ action: "kill", target });
        kills++;
      } catch (e) {
        ctx.log(`skip kill of ${target}: ${(e as Error).message}`);
      }
      await ctx.sleep((step.everyS ?? 1) * 1000);
    }
  };
  await Promise.all(steps.map(loop));
  ctx.facts.kills = kills;
  ctx.mark("fault healed: kill loop over", { kills });
}

const def = loadDefinition("consumer-crash-loop");
const steps = stepsOf(def, "kill");

export const consumerCrashLoop: Scenario = {
  name: def.name,
  kind: "normal",
  ...scenarioNumbers(def),
  fault: (ctx) => killLoop(ctx, def, steps),
  expect: (o) => expectNoDamage(o),
};

// The inventory and points services SIGKILLed again and again (every 3 s, alternating) while they
// consume: each kill drops in-flight handlers mid-transaction and unacked deliveries; the broker
// redelivers them, the inbox turns the ones that had committed into no-ops.
import { killApplication } from "@orderflow/infra";
import { expectNoDamage } from "../expectations.ts";
import type { FaultContext, Scenario } from "../scenario.ts";

/** Kills `targets` in turn every `everyMs` over the middle half of the run; a target that is down is skipped. */
export async function killLoop(ctx: FaultContext, targets: string[], everyMs: number): Promise<void> {
  await ctx.sleep(ctx.durationMs * 0.2);
  const until = Date.now() + ctx.durationMs * 0.5;
  let kills = 0;
  let i = 0;
  ctx.mark(`fault injected: kill loop ${targets.join(", ")}`);
  while (Date.now() < until) {
    const target = targets[i++ % targets.length] as string;
    try {
      await killApplication(target, ctx.stack);
      kills++;
    } catch (e) {
      ctx.log(`skip kill of ${target}: ${(e as Error).message}`);
    }
    await ctx.sleep(everyMs);
  }
  ctx.facts.kills = kills;
  ctx.mark("fault healed: kill loop over", { kills });
}

export const consumerCrashLoop: Scenario = {
  name: "consumer-crash-loop",
  kind: "normal",
  summary: "inventory and points SIGKILLed alternately every 3 s under load (the supervisor restarts them).",
  settleMs: 120_000,
  fault: (ctx) => killLoop(ctx, ["inventory", "points"], 3_000),
  expect: (o) => expectNoDamage(o),
};

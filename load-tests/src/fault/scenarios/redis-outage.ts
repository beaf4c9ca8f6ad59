// Redis down: it only holds the consumers' early-skip cache, so the inbox (PostgreSQL) remains the
// truth and nothing changes but a few more inbox look-ups.
import { startRedisServer, stopRedisServer } from "@orderflow/infra";
import { expectNoDamage } from "../expectations.ts";
import type { Scenario } from "../scenario.ts";

export const redisOutage: Scenario = {
  name: "redis-outage",
  kind: "normal",
  summary: "Redis stopped for the middle of the run, then started.",
  fault: async (ctx) => {
    await ctx.sleep(ctx.durationMs * 0.25);
    await stopRedisServer(ctx.stack);
    ctx.mark("fault injected: redis stopped");
    await ctx.sleep(ctx.durationMs * 0.35);
    await startRedisServer(ctx.stack);
    ctx.mark("fault healed: redis started");
  },
  expect: (o) => expectNoDamage(o),
};

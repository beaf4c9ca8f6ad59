// PostgreSQL restarted (fast shutdown, start) under load: some API calls fail while it is down (the
// ledger holds only 2xx), consumers retry without spending attempts, relays resume from the outbox.
import { restartPostgresServer } from "@orderflow/infra";
import { expectNoDamage } from "../expectations.ts";
import type { Scenario } from "../scenario.ts";

export const dbRestart: Scenario = {
  name: "db-restart",
  kind: "normal",
  summary: "PostgreSQL (all three databases) restarted under load.",
  settleMs: 120_000,
  fault: async (ctx) => {
    await ctx.sleep(ctx.durationMs * 0.35);
    ctx.mark("fault injected: postgres restarting");
    await restartPostgresServer(ctx.stack);
    ctx.mark("fault healed: postgres up");
  },
  expect: (o) => expectNoDamage(o),
};

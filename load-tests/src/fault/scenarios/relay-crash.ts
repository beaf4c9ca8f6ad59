// The order service's relay process SIGKILLed mid-batch, again and again: rows it claimed but had not
// marked are claimed again after their lease, and published again; the inboxes absorb the copies.
import { expectNoDamage } from "../expectations.ts";
import type { Scenario } from "../scenario.ts";
import { killLoop } from "./consumer-crash-loop.ts";

export const relayCrash: Scenario = {
  name: "relay-crash",
  kind: "normal",
  summary: "relay:order (and relay:inventory) SIGKILLed every 2 s under load.",
  settleMs: 120_000,
  fault: (ctx) => killLoop(ctx, ["relay:order", "relay:inventory"], 2_000),
  expect: (o) => expectNoDamage(o),
};

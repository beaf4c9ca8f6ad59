// Every scenario, in the order `pnpm fault all` runs them.
import type { Scenario } from "../scenario.ts";
import { brokerOutage } from "./broker-outage.ts";
import { consumerCrashLoop } from "./consumer-crash-loop.ts";
import { dbRestart } from "./db-restart.ts";
import { leaderLoss } from "./leader-loss.ts";
import { networkBlackhole } from "./network-blackhole.ts";
import { PITFALL_SCENARIOS } from "./pitfalls.ts";
import { poisonMessages } from "./poison-messages.ts";
import { redisOutage } from "./redis-outage.ts";
import { relayCrash } from "./relay-crash.ts";
import { steady } from "./steady.ts";

export const NORMAL_SCENARIOS: Scenario[] = [
  steady,
  leaderLoss,
  brokerOutage,
  consumerCrashLoop,
  relayCrash,
  redisOutage,
  dbRestart,
  networkBlackhole,
  poisonMessages,
];

export const SCENARIOS: Scenario[] = [...NORMAL_SCENARIOS, ...PITFALL_SCENARIOS];

export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}

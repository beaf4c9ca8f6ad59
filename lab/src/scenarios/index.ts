// Every scenario, in the order `pnpm fault all` runs them.
import type { Scenario } from "../run/scenario.ts";
import { brokerOutage } from "./broker-outage.ts";
import { consumerCrashLoop } from "./consumer-crash-loop.ts";
import { dbRestart } from "./db-restart.ts";
import { leaderLoss } from "./leader-loss.ts";
import { networkBlackhole } from "./network-blackhole.ts";
import { PARTITION_SCENARIOS } from "./partitions.ts";
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
  ...PARTITION_SCENARIOS,
];

export const SCENARIOS: Scenario[] = [...NORMAL_SCENARIOS, ...PITFALL_SCENARIOS];

export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}

/** The groups `pnpm fault` takes besides scenario names. */
export const SCENARIO_GROUPS = {
  all: SCENARIOS,
  /** Every pitfall followed by its "-protected" pair. */
  pitfalls: PITFALL_SCENARIOS,
} as const;

/** Names and groups -> scenarios, in the order given, each once. */
export function selectScenarios(names: readonly string[]): Scenario[] {
  const out: Scenario[] = [];
  for (const n of names) {
    const group = SCENARIO_GROUPS[n as keyof typeof SCENARIO_GROUPS];
    const found = group ?? [findScenario(n)];
    for (const sc of found) {
      if (!sc) throw new Error(`unknown scenario "${n}"; known: ${SCENARIOS.map((x) => x.name).join(", ")}`);
      if (!out.includes(sc)) out.push(sc);
    }
  }
  return out;
}

// What a pitfall is, and how it becomes two scenarios: "<name>" runs the lab's compositions of the
// services and relays (lab/src/pitfalls) with one protection removed, "<name>-protected" runs the same
// load, trigger and faults with every protection on. A pitfall passes when the audit finds the damage it
// predicts; its pair when none. Both report the same damage figures, in the pitfall's own terms, so the
// summary table shows the damage beside its absence.
import type { Stack } from "@orderflow/infra";
import type { LabEnv } from "../pitfalls/env.ts";
import type { LabPitfall } from "../pitfalls/pitfalls.ts";
import { labVariant } from "../pitfalls/variant.ts";
import { expectDamage, expectNoDamage } from "../run/expectations.ts";
import type { Expectation, FaultContext, Outcome, Scenario } from "../run/scenario.ts";

type Checks = Expectation["checks"];
export type Figures = Record<string, number>;

export interface Pitfall {
  name: LabPitfall;
  summary: string;
  /** What breaks, and which protection prevents it (for the docs and the report). */
  predicts: string;
  /** The experiment's trigger, in both runs: part of the experiment, not the pitfall (rollbacks, failures). */
  trigger?: Pick<Partial<LabEnv>, "rollbackRate" | "failShare" | "streamFailEvery">;
  /** Environment both runs get (a proxy in front of the broker, the lab's time scale for a job). */
  env?: (
    s: Stack,
    facts: Record<string, unknown>,
  ) => Promise<Record<string, string>> | Record<string, string>;
  /** Environment only the pitfall's run gets (a job switched off). */
  pitfallEnv?: Record<string, string>;
  fault?: (ctx: FaultContext) => Promise<void>;
  cleanup?: Scenario["cleanup"];
  minDurationMs?: number;
  settleMs?: number;
  /**
   * How long the pitfall's audit waits, when its damage never heals (rows failed, messages gone): long
   * enough to show it stays, shorter than the pair's, which needs the time to recover. Default: settleMs.
   */
  pitfallSettleMs?: number;
  /** The damage in the pitfall's own terms (ghost units, rows failed, laps of a cycle...), in both runs. */
  figures: (o: Outcome) => Figures;
  damage: (o: Outcome, f: Figures) => Checks;
  /** What the protection must show besides "no damage" (e.g. the duplicates it absorbed). */
  protectedChecks?: (o: Outcome, f: Figures) => Checks;
  /** Messages the protected run parks by design (the trigger's failures): accepted, not damage. */
  protectedParked?: (o: Outcome, f: Figures) => number;
}

const describeTrigger = (t: Pitfall["trigger"]) =>
  [
    t?.rollbackRate ? `${t.rollbackRate * 100}% of order transactions rolled back` : "",
    t?.failShare ? `${t.failShare * 100}% of first order.created deliveries failing for good` : "",
    t?.streamFailEvery
      ? `every ${t.streamFailEvery}th message of each stock stream failing its first application`
      : "",
  ]
    .filter(Boolean)
    .join(", ");

export function pair(p: Pitfall): [Scenario, Scenario] {
  const common = {
    ...(p.fault ? { fault: p.fault } : {}),
    ...(p.cleanup ? { cleanup: p.cleanup } : {}),
    ...(p.minDurationMs ? { minDurationMs: p.minDurationMs } : {}),
    ...(p.settleMs ? { settleMs: p.settleMs } : {}),
    damage: p.figures,
    // Both halves drive the apps' processes directly (a lab build of their code, a held app, a
    // proxy) through the local stack's supervisor.
    localOnly:
      "a pitfall and its pair restart the apps as the lab's variants of their code, which needs the local stack's supervisor",
    // One protection shown with one of each app: with replicas, a fault aimed at an app hits one
    // instance of it while the other carries on, which is a different experiment.
    needs: (_s: Stack, run: { replicas: number }) =>
      run.replicas > 1
        ? "a pitfall and its pair run with one instance of each app (no --replicas)"
        : undefined,
  };
  const trigger = p.trigger ?? {};
  const hasTrigger = Object.values(trigger).some((v) => v);
  const triggerText = describeTrigger(p.trigger);
  return [
    {
      name: p.name,
      kind: "pitfall",
      summary: `${p.summary} Predicted: ${p.predicts}`,
      apps: async (s, facts) =>
        labVariant({ pitfall: p.name, ...trigger }, { ...(await p.env?.(s, facts)), ...p.pitfallEnv }),
      ...common,
      ...(p.pitfallSettleMs ? { settleMs: p.pitfallSettleMs } : {}),
      expect: (o) => expectDamage(p.damage(o, p.figures(o))),
    },
    {
      name: `${p.name}-protected`,
      kind: "normal",
      summary: `The pair of ${p.name}: the same load${p.fault ? " and faults" : ""}${
        triggerText ? ` (and ${triggerText})` : ""
      } with the protection on: no damage expected.`,
      // The services' own processes, unless the experiment needs the lab's trigger.
      apps: async (s, facts) => {
        const env = (await p.env?.(s, facts)) ?? {};
        if (hasTrigger) return labVariant(trigger, env);
        return Object.keys(env).length > 0 ? { env } : {};
      },
      ...common,
      expect: (o) => {
        const f = p.figures(o);
        return expectNoDamage(o, p.protectedChecks?.(o, f) ?? [], p.protectedParked?.(o, f) ?? 0);
      },
    },
  ];
}

/** The run's outbox rows in one status, across the three services. */
export const outboxRows = (o: Outcome, status: 0 | 1 | 2 | 9) => o.audit.outbox.byStatus[String(status)] ?? 0;

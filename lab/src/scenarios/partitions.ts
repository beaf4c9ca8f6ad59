// Partitions between the broker nodes under load, after the nemeses of RabbitMQ's Jepsen suite: the
// links between nodes cut (infra's partitions.ts) for 20 s, then healed. Beside the saga's audit, a broker
// probe publishes with confirms into a quorum queue of its own and drains it: every confirmed message
// must come out. Runs on compose, and on the local stack with its nodes in namespaces (`pnpm stack up --netns`).
// Numbers: scenarios/partition-*.json.
import {
  type DefinedScenario,
  heldStep,
  loadDefinition,
  scenarioNumbers,
  timeScale,
} from "@orderflow/load/scenario-definitions.ts";
import { electionsBetween, raftTerms, waitBrokerWhole } from "../broker/elections.ts";
import { startBrokerProbe } from "../broker/probe.ts";
import type { BrokerCounts } from "../broker/tally.ts";
import { check, expectNoDamage } from "../run/expectations.ts";
import type { FaultContext, Outcome, Scenario } from "../run/scenario.ts";

/** How long after the heal the broker must be whole again, and every order final (the audit's settle). */
const RECOVERY_BOUND_MS = 60_000;

const NEEDS_NETNS =
  "the broker nodes share the host's network: partitions need `pnpm stack up --netns` (root)";

async function partitionFault(ctx: FaultContext, name: DefinedScenario): Promise<void> {
  const def = loadDefinition(name);
  const cut = heldStep(def, "partition");
  const at = timeScale(def, ctx.durationMs);
  const termsBefore = await raftTerms(ctx.stack);
  const probe = await startBrokerProbe(ctx.stack, `${name}-${Date.now().toString(36)}`, {
    maxMs: ctx.durationMs + 60_000,
    log: ctx.log,
  });
  // A failure on the way still heals, and still drains and removes the probe's queue, before it is told.
  let failed: unknown;
  try {
    await ctx.sleep(at(cut.atS));
    await ctx.measureInFlight(`partition ${cut.target}`);
    const applied = await ctx.faults.apply({ action: "partition", target: cut.target });
    ctx.facts.partition = applied.detail;
    ctx.mark(`fault injected: partition ${cut.target}`, applied.detail);
    // Held for its whole length even when the load ends first: the audit must see all of it.
    await new Promise((r) => setTimeout(r, at(cut.untilS) - at(cut.atS)));
  } catch (e) {
    failed = e;
  } finally {
    await ctx.faults.apply({ action: "heal-partition" }).catch((e: unknown) => {
      ctx.log(`heal-partition: ${(e as Error).message}`);
    });
    ctx.mark("fault healed: links restored");
  }
  ctx.facts.brokerRecoveryMs = await waitBrokerWhole(ctx.stack, RECOVERY_BOUND_MS);
  ctx.mark("broker whole again", { afterMs: ctx.facts.brokerRecoveryMs });
  const { counts, clients } = await probe.finish();
  ctx.facts.broker = counts;
  ctx.facts.brokerClients = clients;
  ctx.facts.leaderElections = electionsBetween(termsBefore, await raftTerms(ctx.stack));
  if (failed !== undefined) throw failed;
}

/** The broker probe's figures, as the summary and the report show them beside the audit's. */
export function brokerFigures(o: Pick<Outcome, "facts">): Record<string, number> | null {
  const b = o.facts.broker as BrokerCounts | undefined;
  if (!b) return null;
  const c = (o.facts.brokerClients ?? {}) as Record<string, number>;
  return {
    published: b.published,
    confirmed: b.confirmed,
    lost: b.lost,
    duplicated: b.duplicated,
    unexpected: b.unexpected,
    unconfirmed: b.unconfirmed,
    recovered: b.recovered,
    "leader elections": Number(o.facts.leaderElections ?? -1),
    "ms from heal to a whole broker": Number(o.facts.brokerRecoveryMs ?? -1),
    "probe publish failures": c.publishFailures ?? -1,
    "probe consumer cancellations": c.consumerCancellations ?? -1,
    "probe failovers": c.failovers ?? -1,
    "probe longest confirm wait, ms": c.longestConfirmMs ?? -1,
  };
}

function expectPartition(o: Outcome) {
  const b = o.facts.broker as BrokerCounts | undefined;
  const recovery = o.facts.brokerRecoveryMs as number | null | undefined;
  return expectNoDamage(o, [
    check(
      "order API 2xx during the partition >= 99%",
      (o.availabilityDuringFaults ?? 0) >= 0.99,
      `availability ${o.availabilityDuringFaults === null ? "n/a" : (o.availabilityDuringFaults * 100).toFixed(2)}%`,
    ),
    check(
      "broker: every confirmed message delivered (lost = 0)",
      b !== undefined && b.confirmed > 0 && b.lost === 0,
      b ? `confirmed ${b.confirmed}, delivered ${b.delivered}, lost ${b.lost}` : "no probe figures",
    ),
    check(
      "broker: unexpected = 0",
      b !== undefined && b.unexpected === 0,
      b ? `unexpected ${b.unexpected}` : "no probe figures",
    ),
    check(
      `broker whole within ${RECOVERY_BOUND_MS / 1000} s of the heal`,
      typeof recovery === "number",
      typeof recovery === "number" ? `${(recovery / 1000).toFixed(1)} s` : "not whole in time",
    ),
  ]);
}

function partitionScenario(name: DefinedScenario): Scenario {
  const def = loadDefinition(name);
  return {
    name: def.name,
    kind: "normal",
    ...scenarioNumbers(def),
    // Compose's nodes have namespaces of their own; the local stack's only with --netns.
    needs: (s, run) => (run.target === "compose" || s.layout.rabbitmq.network ? undefined : NEEDS_NETNS),
    fault: (ctx) => partitionFault(ctx, name),
    expect: expectPartition,
    broker: brokerFigures,
  };
}

export const partitionHalves = partitionScenario("partition-halves");
export const partitionRing = partitionScenario("partition-ring");
export const partitionIsolate = partitionScenario("partition-isolate");
export const partitionBridge = partitionScenario("partition-bridge");

export const PARTITION_SCENARIOS = [partitionHalves, partitionRing, partitionIsolate, partitionBridge];

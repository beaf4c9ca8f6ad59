// One scenario per seed pitfall, each run with its protection removed: the stack runs the lab's own
// compositions of the services and relays (load-tests/src/lab) in place of their own. Its pair
// "<name>-protected" runs the same load and faults with every protection on. A pitfall passes when the
// audit finds the damage it predicts; its pair when none.

import { killApplication, startApplication, stopApplication } from "@orderflow/infra";
import { DEFAULT_RELAY_CONFIG } from "@orderflow/outbox";
import type { LabPitfall } from "../../lab/pitfalls.ts";
import { labVariant } from "../../lab/variant.ts";
import { check, damage, expectDamage, expectNoDamage } from "../expectations.ts";
import type { Expectation, FaultContext, Outcome, Scenario } from "../scenario.ts";
import { republishSentOrders } from "./duplicate-publish.ts";

interface Pitfall {
  name: LabPitfall;
  summary: string;
  /** What breaks, and which protection prevents it (for the docs and the report). */
  predicts: string;
  /** Share of order transactions rolled back, also in the pair: part of the experiment, not the pitfall. */
  rollbackRate?: number;
  fault?: (ctx: FaultContext) => Promise<void>;
  minDurationMs?: number;
  settleMs?: number;
  damage: (o: Outcome) => Expectation["checks"];
  /** What the protection must show besides "no damage" (e.g. the duplicates it absorbed). */
  protectedChecks?: (o: Outcome) => Expectation["checks"];
}

function pair(p: Pitfall): [Scenario, Scenario] {
  const common = {
    ...(p.fault ? { fault: p.fault } : {}),
    ...(p.minDurationMs ? { minDurationMs: p.minDurationMs } : {}),
    ...(p.settleMs ? { settleMs: p.settleMs } : {}),
  };
  return [
    {
      name: p.name,
      kind: "pitfall",
      summary: `${p.summary} Predicted: ${p.predicts}`,
      apps: () => labVariant({ pitfall: p.name, rollbackRate: p.rollbackRate ?? 0 }),
      ...common,
      expect: (o) => expectDamage(p.damage(o)),
    },
    {
      name: `${p.name}-protected`,
      kind: "normal",
      summary: `The pair of ${p.name}: the same load${p.fault ? " and faults" : ""}${
        p.rollbackRate ? ` (and ${p.rollbackRate * 100}% of order transactions rolled back)` : ""
      } with the protection on: no damage expected.`,
      // The services' own processes, unless the experiment needs the lab's rollbacks.
      apps: () => (p.rollbackRate ? labVariant({ rollbackRate: p.rollbackRate }) : {}),
      ...common,
      expect: (o) => expectNoDamage(o, p.protectedChecks?.(o) ?? []),
    },
  ];
}

const n = (x: number) => String(x);

/**
 * A consumer killed while it holds work: held down until a backlog builds, started, killed while it
 * works through it. Under manual acks the backlog comes back; under noAck it is gone.
 */
async function killWithBacklog(ctx: FaultContext): Promise<void> {
  await ctx.sleep(ctx.durationMs * 0.15);
  ctx.mark("fault injected: consumers killed while holding a backlog");
  for (const target of ["inventory", "points"]) {
    await stopApplication(target, ctx.stack);
    await new Promise((r) => setTimeout(r, 6_000));
    await startApplication(target, ctx.stack);
    await new Promise((r) => setTimeout(r, 500));
    await killApplication(target, ctx.stack);
  }
  ctx.mark("fault healed: consumers restart");
}

export const PITFALLS: Pitfall[] = [
  {
    name: "publish-before-commit",
    summary:
      "The order service publishes order.created straight to the broker inside its transaction (no outbox); 10% of order transactions roll back after the publish.",
    predicts:
      "stock reserved for orders the API never accepted (reserved > confirmed units): stock not conserved.",
    rollbackRate: 0.1,
    settleMs: 30_000,
    // The audit reads reservations by the ledger's order ids, so a reservation for an order that never
    // committed shows as stock: reserved units beyond what the confirmed orders account for.
    damage: (o) => {
      const ghost = o.audit.violations.stock.filter(
        (s) => s.problem.startsWith("reserved") && s.actual > s.expected,
      );
      const units = ghost.reduce((a, s) => a + s.actual - s.expected, 0);
      return [
        check(
          "stock reserved for orders the API never accepted (reserved > confirmed units)",
          units > 0,
          `${units} ghost unit(s) over ${ghost.length} SKU(s)`,
        ),
        check("no accepted order lost", damage(o).lost === 0, `lost ${damage(o).lost}`),
      ];
    },
  },
  {
    name: "dedup-by-business-id",
    summary:
      "Consumers key their inbox on payload.orderId instead of the message id: an order's second message (points.granted after inventory.reserved) looks like a duplicate.",
    predicts: "orders that never finish (CONFIRMED without points): unfinished > 0.",
    settleMs: 30_000,
    damage: (o) => {
      const d = damage(o);
      return [
        check("unfinished orders > 0", d.unfinished > 0, `unfinished ${d.unfinished}`),
        check(
          "duplicates 'caught' > 0",
          (o.audit.absorbed.duplicatesCaughtByInbox ?? 0) > 0,
          `caught ${o.audit.absorbed.duplicatesCaughtByInbox ?? 0}`,
        ),
      ];
    },
  },
  {
    name: "no-claim-cas",
    summary:
      "Relays claim outbox rows with a plain SELECT (no SKIP LOCKED, no lease): the fast path, the in-process sweep and the relay process publish the same rows.",
    predicts:
      "duplicate publishes (duplicates caught by the inboxes >> 0) and no effect damage, because the inboxes hold.",
    damage: (o) => {
      const d = damage(o);
      const caught = o.audit.absorbed.duplicatesCaughtByInbox ?? 0;
      return [
        check("duplicate deliveries caught by the inboxes > 0", caught > 0, `caught ${n(caught)}`),
        check(
          "no effect applied twice (the inbox holds)",
          d.duplicated === 0 && d.stock === 0 && d.points === 0,
          `duplicated ${d.duplicated}, stock problems ${d.stock}, points problems ${d.points}`,
        ),
        check(
          "nothing lost",
          d.lost === 0 && d.unfinished === 0,
          `lost ${d.lost}, unfinished ${d.unfinished}`,
        ),
      ];
    },
  },
  {
    name: "no-consumer-dedup",
    summary:
      "A naive consumer: no inbox, no Redis skip, no state guard in the handlers. Duplicate source: 30 order.created messages already published go out again with the same message id, as a relay crash between publish and mark-sent would send them.",
    predicts: "stock reserved twice or points granted twice for some orders.",
    fault: async (ctx) => {
      await ctx.sleep(ctx.durationMs * 0.5);
      ctx.mark("fault injected: 30 published order.created sent again");
      ctx.facts.republished = await republishSentOrders(ctx.stack, 30);
      ctx.mark("fault healed: (nothing to heal)");
    },
    settleMs: 30_000,
    damage: (o) => {
      const over = o.audit.violations.stock.filter(
        (s) => s.problem.startsWith("reserved") && s.actual > s.expected,
      );
      const extraPoints = o.audit.violations.points.filter((p) => p.actual > p.expected);
      return [
        check("duplicates sent", Number(o.facts.republished ?? 0) > 0, `sent ${o.facts.republished ?? 0}`),
        check(
          "stock reserved twice or points granted twice",
          over.length + extraPoints.length > 0,
          `${over.length} SKU(s) over-reserved, ${extraPoints.length} customer(s) over-granted`,
        ),
      ];
    },
    protectedChecks: (o) => {
      const sent = Number(o.facts.republished ?? 0);
      const caught = o.audit.absorbed.duplicatesCaughtByInbox ?? 0;
      return [
        check(
          "every duplicate caught by the inbox",
          sent > 0 && caught >= sent,
          `sent ${sent}, caught ${caught}`,
        ),
      ];
    },
  },
  {
    name: "auto-ack",
    summary:
      "Consumers consume with noAck. Inventory, then points, is held down for 6 s (a backlog builds), started, and SIGKILLed 0.5 s after it is ready: the broker has pushed it the whole backlog at once.",
    predicts:
      "orders stuck PENDING or CONFIRMED without points (unfinished > 0); reconciliation (5 min) does not repair within the run.",
    fault: killWithBacklog,
    // The killed process may hold leases on outbox rows its fast path had claimed (its replies): the
    // sweep takes them again only when the lease runs out, so the pair settles at the lease plus margin.
    settleMs: DEFAULT_RELAY_CONFIG.leaseMs + 20_000,
    damage: (o) => {
      const d = damage(o);
      return [check("unfinished orders > 0", d.unfinished > 0, `unfinished ${d.unfinished}`)];
    },
  },
];

export const PITFALL_SCENARIOS: Scenario[] = PITFALLS.flatMap(pair);

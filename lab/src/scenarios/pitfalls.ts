// The seed's first pitfalls, on the write and consume paths (publish-before-commit, dedup-by-business-id,
// no-claim-cas, no-consumer-dedup, auto-ack), and the list of every pitfall in the order `pnpm fault
// pitfalls` runs them, each followed by its "-protected" pair (pitfall-pair.ts).

import { stopApplication } from "@orderflow/infra";
import { QUEUE as INVENTORY_QUEUE } from "@orderflow/inventory";
import { DEFAULT_RELAY_CONFIG } from "@orderflow/outbox";
import { QUEUE as POINTS_QUEUE } from "@orderflow/points";
import { check, damage } from "../run/expectations.ts";
import type { FaultContext, Outcome, Scenario } from "../run/scenario.ts";
import { republishSentOrders } from "./duplicate-publish.ts";
import { type KillOnDelivery, killOnDelivery } from "./kill-on-delivery.ts";
import { type Pitfall, pair } from "./pitfall-pair.ts";
import { OPERATIONS_PITFALLS } from "./pitfalls-operations.ts";
import { ORDERING_PITFALLS } from "./pitfalls-ordering.ts";
import { RELAY_PITFALLS } from "./pitfalls-relay.ts";

const n = (x: number) => String(x);

/** The consumers auto-ack kills, in order, with the queue each consumes. */
const KILLED = [
  ["inventory", INVENTORY_QUEUE],
  ["points", POINTS_QUEUE],
] as const;
const killFact = (target: string) => `${target}Kill`;

/**
 * A consumer killed while it holds work: held down until a backlog builds, started, killed once it holds
 * what the broker hands it and cannot commit it. Acked after the commit, that comes back; acked on
 * arrival, it is gone.
 */
async function killWithBacklog(ctx: FaultContext): Promise<void> {
  await ctx.sleep(ctx.durationMs * 0.15);
  ctx.mark("fault injected: consumers killed while holding a backlog");
  for (const [target, queue] of KILLED) {
    await ctx.measureInFlight(`stop ${target}`);
    await stopApplication(target, ctx.stack);
    await new Promise((r) => setTimeout(r, 6_000));
    // What the kill will hit is the backlog built while it was down, so it is measured before the start.
    await ctx.measureInFlight(`kill -9 ${target}`);
    const k = await killOnDelivery(ctx.stack, target, queue);
    ctx.facts[killFact(target)] = k;
    ctx.log(
      `${target} killed ${k.afterMs} ms after its start, ${k.readyBefore} -> ${k.readyLowest} ready (${k.readyAtKill} at the kill), ${k.transactionsCut} transactions cut${k.timedOut ? " (deadline: nothing handed over)" : ""}`,
    );
  }
  ctx.mark("fault healed: consumers restart");
}

/** Reserved units beyond what the confirmed orders account for, and the SKUs they are on. */
function ghostStock(o: Outcome) {
  const ghost = o.audit.violations.stock.filter(
    (s) => s.problem.startsWith("reserved") && s.actual > s.expected,
  );
  return { units: ghost.reduce((a, s) => a + s.actual - s.expected, 0), skus: ghost.length };
}

/** Consumer transactions holding deliveries that the kills cut (killOnDelivery). */
const transactionsCut = (o: Outcome) =>
  KILLED.reduce((a, [target]) => {
    const kill = o.facts[killFact(target)] as KillOnDelivery | undefined;
    return a + (kill?.transactionsCut ?? 0);
  }, 0);

const overGranted = (o: Outcome) => o.audit.violations.points.filter((p) => p.actual > p.expected).length;
const caught = (o: Outcome) => o.audit.absorbed.duplicatesCaughtByInbox ?? 0;

const FIRST_PITFALLS: Pitfall[] = [
  {
    name: "publish-before-commit",
    summary:
      "The order service publishes order.created straight to the broker inside its transaction (no outbox); 10% of order transactions roll back after the publish.",
    predicts:
      "stock reserved for orders the API never accepted (reserved > confirmed units): stock not conserved.",
    trigger: { rollbackRate: 0.1 },
    settleMs: 30_000,
    // The audit reads reservations by the ledger's order ids, so a reservation for an order that never
    // committed shows as stock: reserved units beyond what the confirmed orders account for.
    figures: (o) => {
      const g = ghostStock(o);
      return { "ghost units": g.units, "SKUs over-reserved": g.skus };
    },
    damage: (o, f) => [
      check(
        "stock reserved for orders the API never accepted (reserved > confirmed units)",
        (f["ghost units"] ?? 0) > 0,
        `${f["ghost units"]} ghost unit(s) over ${f["SKUs over-reserved"]} SKU(s)`,
      ),
      check("no accepted order lost", damage(o).lost === 0, `lost ${damage(o).lost}`),
    ],
  },
  {
    name: "dedup-by-business-id",
    summary:
      "Consumers key their inbox on payload.orderId instead of the message id: an order's second reply (inventory.reserved and points.granted, whichever comes second) looks like a duplicate.",
    predicts: "orders that never finish (CONFIRMED without points, or PENDING with them): unfinished > 0.",
    settleMs: 30_000,
    figures: (o) => ({ "unfinished orders": damage(o).unfinished, "messages wrongly skipped": caught(o) }),
    damage: (_o, f) => [
      check(
        "unfinished orders > 0",
        (f["unfinished orders"] ?? 0) > 0,
        `unfinished ${f["unfinished orders"]}`,
      ),
      check(
        "duplicates 'caught' > 0",
        (f["messages wrongly skipped"] ?? 0) > 0,
        `caught ${f["messages wrongly skipped"]}`,
      ),
    ],
  },
  {
    name: "no-claim-cas",
    summary:
      "Relays claim outbox rows with a plain SELECT (no SKIP LOCKED, no lease): the fast path, the in-process sweep and the relay process publish the same rows.",
    predicts:
      "duplicate publishes (duplicates caught by the inboxes >> 0) and no effect damage, because the inboxes hold.",
    // Both runs: the relay process sweeps every 20 ms, so its claims overlap the fast path's at any rate.
    // A row stays pending while its publish waits for the confirm; at the 1 s default a slow run (20
    // orders/s) may see no sweep read a row in that window, and the pitfall would show nothing.
    env: () => ({ OUTBOX_POLL_MS: "20" }),
    figures: (o) => ({
      "duplicate publishes caught": caught(o),
      "effects applied twice": damage(o).duplicated,
    }),
    damage: (o) => {
      const d = damage(o);
      return [
        check("duplicate deliveries caught by the inboxes > 0", caught(o) > 0, `caught ${n(caught(o))}`),
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
      await ctx.measureInFlight("send 30 published order.created again");
      ctx.mark("fault injected: 30 published order.created sent again");
      ctx.facts.republished = await republishSentOrders(ctx.stack, 30);
      ctx.mark("fault healed: (nothing to heal)");
    },
    settleMs: 30_000,
    figures: (o) => ({
      "duplicates sent": Number(o.facts.republished ?? 0),
      "SKUs over-reserved": ghostStock(o).skus,
      "customers over-granted": overGranted(o),
    }),
    damage: (_o, f) => [
      check("duplicates sent", (f["duplicates sent"] ?? 0) > 0, `sent ${f["duplicates sent"]}`),
      check(
        "stock reserved twice or points granted twice",
        (f["SKUs over-reserved"] ?? 0) + (f["customers over-granted"] ?? 0) > 0,
        `${f["SKUs over-reserved"]} SKU(s) over-reserved, ${f["customers over-granted"]} customer(s) over-granted`,
      ),
    ],
    protectedChecks: (o, f) => {
      const sent = f["duplicates sent"] ?? 0;
      return [
        check(
          "every duplicate caught by the inbox",
          sent > 0 && caught(o) >= sent,
          `sent ${sent}, caught ${caught(o)}`,
        ),
      ];
    },
  },
  {
    name: "auto-ack",
    summary:
      "Consumers ack each delivery as it arrives (what noAck amounts to). Inventory, then points, is held down for 6 s (a backlog builds), started with its inbox locked, and SIGKILLed once it holds what the broker hands it (300 ms after a transaction first waits on the lock): acked on arrival, the broker pushes it all at once.",
    predicts:
      "orders stuck PENDING or CONFIRMED without points (unfinished > 0); reconciliation (5 min) does not repair within the run.",
    fault: killWithBacklog,
    // The killed process may hold leases on outbox rows its fast path had claimed (its replies): the
    // sweep takes them again only when the lease runs out, so the pair settles at the lease plus margin.
    settleMs: DEFAULT_RELAY_CONFIG.leaseMs + 20_000,
    figures: (o) => ({
      "transactions cut by the kills": transactionsCut(o),
      "unfinished orders": damage(o).unfinished,
    }),
    damage: (_o, f) => [
      check(
        "unfinished orders > 0",
        (f["unfinished orders"] ?? 0) > 0,
        `unfinished ${f["unfinished orders"]}`,
      ),
    ],
    // The pair passes only if its kills hit something: a transaction holding deliveries, which the
    // broker then redelivers. (Under load the ready counts refill, so they can hide what was handed over.)
    protectedChecks: (_o, f) => [
      check(
        "transactions cut by the kills > 0",
        (f["transactions cut by the kills"] ?? 0) > 0,
        `cut ${f["transactions cut by the kills"]}`,
      ),
    ],
  },
];

export const PITFALLS: Pitfall[] = [
  ...FIRST_PITFALLS,
  ...RELAY_PITFALLS,
  ...OPERATIONS_PITFALLS,
  ...ORDERING_PITFALLS,
];

export const PITFALL_SCENARIOS: Scenario[] = PITFALLS.flatMap(pair);

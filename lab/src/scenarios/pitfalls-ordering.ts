// The ordering pitfall: an ordered stream relayed and consumed as if it were not (pitfall-pair.ts makes
// it a pair). The stream is inventory.stock-changed, each message a SKU's whole level, which the order
// service keeps as its read model of stock by overwriting: applied out of order, it shows an old level.
import { check, damage } from "../run/expectations.ts";
import type { FaultContext, Outcome } from "../run/scenario.ts";
import { seedStock } from "../run/workload.ts";
import type { Pitfall } from "./pitfall-pair.ts";

const RESTOCKS = 51;
const FAIL_EVERY = 50;

/**
 * Near the end of the load, one SKU of the run's own is restocked RESTOCKS times at once: sequences 1 to
 * 51 of its stream, each with another level. Under the trigger 50 fails once and comes back a second
 * later, after 51, the newest level, has arrived: without the turn check it overwrites it, whatever the
 * load did to the other SKUs.
 */
async function restockBurst(ctx: FaultContext): Promise<void> {
  await ctx.sleep(Math.max(0, ctx.durationMs - 5_000));
  const sku = `${ctx.prefix}restock`;
  await ctx.measureInFlight("restock burst");
  ctx.mark("fault injected: restock burst", { sku, restocks: RESTOCKS });
  // All at once: they take their numbers in commit order within milliseconds, so 51 is written right
  // after 50 however slow the API is under load, and 50's retry always comes back after it.
  await Promise.all(Array.from({ length: RESTOCKS }, (_, i) => seedStock(ctx.stack, { [sku]: 100 + i })));
  ctx.facts.restockedSku = sku;
  ctx.mark("fault healed: restock burst");
}

const outOfOrder = (o: Outcome) =>
  o.audit.violations.readModel
    .filter((p) => p.problem === "levels applied out of order")
    .reduce((n, p) => n + p.actual, 0);
const shownWrong = (o: Outcome) =>
  new Set(o.audit.violations.readModel.filter((p) => p.problem.endsWith("differs")).map((p) => p.sku)).size;

export const ORDERING_PITFALLS: Pitfall[] = [
  {
    name: "no-ordering",
    summary:
      "The relays claim without the head-of-stream rule and the consumers apply an ordered stream's messages as they arrive (no turn check). Every 50th message of each stock stream (inventory.stock-changed, per SKU) fails its first application and goes round the 1 s retry tier; near the end one SKU is restocked 51 times at once.",
    predicts:
      "levels applied out of order, and the order service's read model of stock left showing an older level than inventory holds: the late message overwrote a newer one.",
    // Each failure holds its SKU's stream for about a second in the pair. At the lab's 100 orders/s a
    // stream of the 8 SKUs carries about 20 changes a second, so one in 50 keeps it moving.
    trigger: { streamFailEvery: FAIL_EVERY },
    fault: restockBurst,
    // The pair's streams catch up after the load: each held SKU's messages wait their turn round the tier.
    settleMs: 90_000,
    pitfallSettleMs: 20_000,
    figures: (o) => ({
      "levels applied out of order": outOfOrder(o),
      "SKUs shown wrong": shownWrong(o),
    }),
    damage: (o, f) => [
      check(
        "levels applied out of order > 0",
        (f["levels applied out of order"] ?? 0) > 0,
        `${f["levels applied out of order"]} application(s)`,
      ),
      check(
        "SKUs whose read model differs from inventory > 0",
        (f["SKUs shown wrong"] ?? 0) > 0,
        `${f["SKUs shown wrong"]} SKU(s)`,
      ),
      check("no accepted order lost", damage(o).lost === 0, `lost ${damage(o).lost}`),
    ],
  },
];

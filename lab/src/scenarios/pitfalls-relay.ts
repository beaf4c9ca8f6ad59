// The seed's pitfalls on the way out of the outbox: publishing without confirms, the after-commit publish
// with no sweep behind it, and retrying an outage without backoff (pitfall-pair.ts makes each a pair).
import { check, damage } from "../run/expectations.ts";
import { brokerDown } from "./broker-outage.ts";
import { blackholeFor, closeProxies, proxiedBrokerUrls } from "./network-blackhole.ts";
import { type Figures, outboxRows, type Pitfall } from "./pitfall-pair.ts";

/** The damage all three end in: orders that never reach a final state. */
const ordersStuck = (f: Figures) =>
  check("orders stuck > 0", (f["unfinished orders"] ?? 0) > 0, `unfinished ${f["unfinished orders"]}`);

export const RELAY_PITFALLS: Pitfall[] = [
  {
    name: "no-confirms",
    summary:
      "Relays publish on a plain channel and mark each row sent as soon as the write returns (no publisher confirms). The order service's broker link is partitioned for 30 s (the proxies stop forwarding; both ends' heartbeats declare the connection dead).",
    predicts:
      'orders stuck PENDING while their order.created rows say "sent": the broker never had the messages.',
    env: (s, facts) => proxiedBrokerUrls(s, "order", facts),
    // "hold", not "drop": a partition as TCP has it. Nothing is lost in transit while the connection
    // lives; what dies with the connection (the unconfirmed writes) is lost, and only confirms know it.
    fault: async (ctx) => {
      await ctx.sleep(ctx.durationMs * 0.2);
      await blackholeFor(ctx, 30_000, "the order service's broker link", "hold");
    },
    cleanup: closeProxies,
    minDurationMs: 45_000,
    settleMs: 90_000,
    pitfallSettleMs: 30_000,
    figures: (o) => ({
      'rows "sent", never answered': outboxRows(o, 1),
      "unfinished orders": damage(o).unfinished,
    }),
    damage: (o, f) => [
      check(
        "rows marked sent whose message never arrived > 0",
        (f['rows "sent", never answered'] ?? 0) > 0,
        `${f['rows "sent", never answered']} row(s) in status 1 after the settle`,
      ),
      ordersStuck(f),
      check("no accepted order lost by the API", damage(o).lost === 0, `lost ${damage(o).lost}`),
    ],
  },
  {
    name: "no-relay-sweep",
    summary:
      "Only the publish right after the commit remains: the relays' sweep takes only rows committed in the last 2 s, with no fallback for older ones. The whole broker is stopped for 8 s under load.",
    predicts:
      "rows committed while the fast path could not publish (the outage, longer than the 2 s the naive claim looks back) stay pending forever: orders stuck PENDING.",
    // A whole-broker outage, not a node kill: after kill -9 of one node the links often fail over in less
    // than the claim's 2 s, so whether anything is left behind would be chance. An 8 s outage always
    // outlasts it; every row committed in its first 6 s is then older than anything the claim looks at.
    fault: (ctx) => brokerDown(ctx, ctx.durationMs * 0.3, 8_000),
    // Orders must still arrive once every node is down. Stopping three nodes on busy cores can take
    // longer than the 8 s left of a 12 s run, and then no row is ever committed during the outage.
    minDurationMs: 25_000,
    settleMs: 45_000,
    pitfallSettleMs: 30_000,
    figures: (o) => ({ "rows never published": outboxRows(o, 0), "unfinished orders": damage(o).unfinished }),
    damage: (_o, f) => [
      check(
        "outbox rows left pending > 0",
        (f["rows never published"] ?? 0) > 0,
        `${f["rows never published"]} row(s) in status 0 after the settle`,
      ),
      ordersStuck(f),
    ],
  },
  {
    name: "no-backoff",
    summary:
      "Relays count an outage as a refusal and try every row five times, a fixed 0.5 s apart, then fail it (9); no health gate, no probe batch. The whole broker is stopped for 20 s under load.",
    predicts:
      "a retry storm: every row written during the outage spends its five attempts in seconds and fails (9); those orders stay unfinished until an operator redrives them.",
    fault: (ctx) => brokerDown(ctx, 5_000, 20_000),
    minDurationMs: 45_000,
    settleMs: 60_000,
    pitfallSettleMs: 30_000,
    figures: (o) => {
      const rows = Object.values(o.audit.outbox.byStatus).reduce((a, b) => a + b, 0);
      return {
        "rows failed (9)": outboxRows(o, 9),
        "attempts per row": rows > 0 ? Math.round((o.audit.outbox.attempts / rows) * 100) / 100 : 0,
        "unfinished orders": damage(o).unfinished,
      };
    },
    damage: (_o, f) => [
      check("rows failed (9) > 0", (f["rows failed (9)"] ?? 0) > 0, `${f["rows failed (9)"]} row(s) failed`),
      check(
        "attempts per row above one (a healthy run spends one)",
        (f["attempts per row"] ?? 0) > 1,
        `${f["attempts per row"]} attempts per row`,
      ),
      ordersStuck(f),
    ],
  },
];

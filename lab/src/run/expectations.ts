// The verdicts scenarios expect. A normal scenario: nothing lost, nothing applied twice, nothing
// unexpected, nothing parked. A pitfall scenario: the damage its seed predicts, found by the audit.
import type { Expectation, Outcome } from "./scenario.ts";

type Check = Expectation["checks"][number];

export const check = (name: string, ok: boolean, detail: string): Check => ({ name, ok, detail });

const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/** Counts of each kind of violation, as the summary table shows them. */
export function damage(o: Outcome) {
  const v = o.audit.violations;
  return {
    lost: v.lost.length,
    unfinished: v.unfinished.length,
    duplicated: v.duplicated.length + v.points.filter((p) => p.actual > p.expected).length,
    unexpected: v.unexpected.length,
    stuckOutbox: Object.keys(v.stuckOutbox).length,
    stock: v.stock.length,
    readModel: v.readModel.length,
    points: v.points.length,
    parked: total(o.parkedDelta),
  };
}

export function expectNoDamage(o: Outcome, extra: Check[] = [], expectedParked = 0): Expectation {
  const d = damage(o);
  const checks = [
    check("some orders accepted", o.audit.orders.accepted > 0, `${o.audit.orders.accepted} accepted`),
    check("lost = 0", d.lost === 0, `lost ${d.lost}`),
    check("unfinished = 0", d.unfinished === 0, `unfinished ${d.unfinished}`),
    check("duplicated effects = 0", d.duplicated === 0, `duplicated ${d.duplicated}`),
    check("unexpected effects = 0", d.unexpected === 0, `unexpected ${d.unexpected}`),
    check("no outbox row stuck", d.stuckOutbox === 0, JSON.stringify(o.audit.violations.stuckOutbox)),
    check("stock conserved", d.stock === 0, `${d.stock} SKU problem(s)`),
    check(
      "read model of stock = inventory's, applied in order",
      d.readModel === 0,
      JSON.stringify(o.audit.violations.readModel.slice(0, 3)),
    ),
    check("points follow the rule", d.points === 0, `${d.points} customer(s) off`),
    check(
      `parked = ${expectedParked}`,
      d.parked === expectedParked,
      `parked ${d.parked}: ${JSON.stringify(o.parkedDelta)}`,
    ),
    ...extra,
  ];
  return { passed: checks.every((c) => c.ok), checks };
}

/** A pitfall passes when every predicted-damage check holds. */
export function expectDamage(checks: Check[]): Expectation {
  return { passed: checks.length > 0 && checks.every((c) => c.ok), checks };
}

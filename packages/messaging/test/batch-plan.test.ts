// The ordering rule of set-based batches (src/batch-plan.ts), as pure logic: which deliveries one
// set-based handler applies together, and in what order the groups run.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { batchPlan, type PlanItem } from "../src/batch-plan.ts";

const item = (type: string, key: string | undefined, batchable = true): PlanItem => ({
  type,
  key,
  batchable,
});

describe("batch plan", () => {
  it("groups the events of one type about different aggregates, types in order of first appearance", () => {
    const plan = batchPlan([
      item("reserved", "a"),
      item("granted", "b"),
      item("reserved", "c"),
      item("granted", "d"),
    ]);
    expect(plan).toEqual([
      [0, 2],
      [1, 3],
    ]);
  });

  it("a second message about the same aggregate goes to a later round, behind the first", () => {
    const plan = batchPlan([
      item("created", "a"),
      item("cancelled", "a"),
      item("created", "b"),
      item("cancelled", "b"),
    ]);
    expect(plan).toEqual([
      [0, 2],
      [1, 3],
    ]);
    expect(batchPlan([item("x", "a"), item("x", "a"), item("x", "b")])).toEqual([[0, 2], [1]]);
  });

  it("a type without a set-based handler, or a message naming no aggregate, runs alone in its place", () => {
    const plan = batchPlan([
      item("reserved", "a"),
      item("released", "b", false),
      item("reserved", "c"),
      item("reserved", undefined),
      item("reserved", "d"),
    ]);
    expect(plan).toEqual([[0], [1], [2], [3], [4]]);
  });

  it("for any batch: every delivery once, one type and distinct aggregates per group, each aggregate's order and every barrier's place kept", () => {
    const arbItem = fc.record({
      type: fc.constantFrom("t1", "t2", "t3"),
      key: fc.option(fc.constantFrom("a", "b", "c", "d", "e"), { nil: undefined, freq: 8 }),
      batchable: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(arbItem, { maxLength: 60 }), (items) => {
        const plan = batchPlan(items);
        const order = plan.flat();
        expect([...order].sort((x, y) => x - y)).toEqual(items.map((_, i) => i));
        const pos = new Map(order.map((n, p) => [n, p]));
        for (const group of plan) {
          const members = group.map((n) => items[n] as PlanItem);
          // One type's events keep their delivery order inside a set-based call.
          expect(group).toEqual([...group].sort((x, y) => x - y));
          expect(new Set(members.map((m) => m.type)).size).toBe(1);
          if (group.length > 1) {
            expect(members.every((m) => m.batchable && m.key !== undefined)).toBe(true);
            expect(new Set(members.map((m) => m.key)).size).toBe(group.length);
          }
        }
        for (let i = 0; i < items.length; i++)
          for (let j = i + 1; j < items.length; j++) {
            const a = items[i] as PlanItem;
            const b = items[j] as PlanItem;
            const barrier = !a.batchable || !b.batchable || a.key === undefined || b.key === undefined;
            if (barrier || a.key === b.key) expect(pos.get(i) as number).toBeLessThan(pos.get(j) as number);
          }
      }),
      { numRuns: 300 },
    );
  });
});

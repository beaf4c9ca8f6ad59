// The broker's topology (infra/rabbitmq/definitions.json, loaded by the local stack and by docker
// compose) against each service's subscriptions: a work queue bound to an event its service has no step
// for parks every copy, and a step whose event is not bound never runs. Points grants on
// inventory.reserved v2 and on order.confirmed (for a v1 reservation); this keeps the two lists in step.
import { type EventType, orderedByAggregate } from "@orderflow/contracts";
import { readDefinitions } from "@orderflow/infra";
import * as inventory from "@orderflow/inventory";
import * as order from "@orderflow/order";
import * as points from "@orderflow/points";
import { describe, expect, test } from "vitest";

const bound = (queue: string) =>
  readDefinitions()
    .bindings.filter((b) => b.source === "orderflow.events" && b.destination === queue)
    .map((b) => b.routing_key)
    .sort();

const subscribed = {
  [inventory.QUEUE]: Object.keys(inventory.SUBSCRIPTIONS),
  [order.QUEUE]: Object.keys(order.orderSubscriptions({ reached: () => {}, register: () => {} })),
  [points.QUEUE]: Object.keys(points.SUBSCRIPTIONS),
};

describe("each work queue is bound to exactly the events its service has steps for", () => {
  for (const [queue, types] of Object.entries(subscribed))
    test(queue, () => {
      expect(types.length).toBeGreaterThan(0);
      expect(bound(queue)).toEqual([...types].sort());
    });

  test("a work queue that carries an ordered stream has one active consumer, and no other queue has", () => {
    // Two instances taking turns at one key's messages would each find half of them early (docs/ordering.md).
    const args = (queue: string) => readDefinitions().queues.find((q) => q.name === queue)?.arguments ?? {};
    for (const [queue, types] of Object.entries(subscribed)) {
      const ordered = types.some((t) => orderedByAggregate(t as EventType));
      expect({ queue, single: args(queue)["x-single-active-consumer"] === true }).toEqual({
        queue,
        single: ordered,
      });
    }
    expect(subscribed[order.QUEUE]).toContain("inventory.stock-changed");
  });

  test("inventory.reserved reaches both the order service (confirm) and points (grant)", () => {
    expect(bound(order.QUEUE)).toContain("inventory.reserved");
    expect(bound(points.QUEUE)).toContain("inventory.reserved");
  });
});

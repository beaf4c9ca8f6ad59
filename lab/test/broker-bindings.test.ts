// The broker's topology (infra/rabbitmq/definitions.json, loaded by the local stack and by docker
// compose) against each service's subscriptions: a work queue bound to an event its service has no step
// for parks every copy, and a step whose event is not bound never runs. Points grants on
// inventory.reserved v2 and on order.confirmed (for a v1 reservation); this keeps the two lists in step.
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

  test("inventory.reserved reaches both the order service (confirm) and points (grant)", () => {
    expect(bound(order.QUEUE)).toContain("inventory.reserved");
    expect(bound(points.QUEUE)).toContain("inventory.reserved");
  });
});

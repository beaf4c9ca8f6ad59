import { describe, expect, it } from "vitest";
import { doneOnConfirm, EVENT_TYPES, orderedByAggregate, publishedBy, REPLIES } from "../src/index.ts";

describe("which outbox rows a reply closes", () => {
  it("every event the order service publishes is answered, so none of its rows is done on confirm", () => {
    expect(publishedBy("order").sort()).toEqual(["order.cancelled", "order.confirmed", "order.created"]);
    expect(doneOnConfirm(publishedBy("order"))).toEqual([]);
  });

  it("inventory's and points' events, replies and the stock stream, are done once the broker confirms them", () => {
    expect(doneOnConfirm(publishedBy("inventory")).sort()).toEqual([
      "inventory.rejected",
      "inventory.released",
      "inventory.reserved",
      "inventory.stock-changed",
    ]);
    expect(doneOnConfirm(publishedBy("points")).sort()).toEqual(["points.granted", "points.reversed"]);
  });

  it("every reply is an event of another service; every saga event is answered or a reply, the rest are streams", () => {
    const replies = new Set<string>(Object.values(REPLIES).flat());
    for (const [event, answers] of Object.entries(REPLIES))
      for (const r of answers) expect(r.split(".")[0]).not.toBe(event.split(".")[0]);
    const neither = EVENT_TYPES.filter((t) => !Object.hasOwn(REPLIES, t) && !replies.has(t));
    expect(neither).toEqual(["inventory.stock-changed"]);
    for (const t of neither) expect(orderedByAggregate(t), t).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { doneOnConfirm, EVENT_TYPES, publishedBy, REPLIES } from "../src/index.ts";

describe("which outbox rows a reply closes", () => {
  it("every event the order service publishes is answered, so none of its rows is done on confirm", () => {
    expect(publishedBy("order").sort()).toEqual(["order.cancelled", "order.confirmed", "order.created"]);
    expect(doneOnConfirm(publishedBy("order"))).toEqual([]);
  });

  it("inventory's and points' events answer others and are done once the broker confirms them", () => {
    expect(doneOnConfirm(publishedBy("inventory")).sort()).toEqual([
      "inventory.rejected",
      "inventory.released",
      "inventory.reserved",
    ]);
    expect(doneOnConfirm(publishedBy("points")).sort()).toEqual(["points.granted", "points.reversed"]);
  });

  it("every reply is an event of another service, and every event is either answered or a reply", () => {
    const replies = new Set<string>(Object.values(REPLIES).flat());
    for (const [event, answers] of Object.entries(REPLIES))
      for (const r of answers) expect(r.split(".")[0]).not.toBe(event.split(".")[0]);
    for (const t of EVENT_TYPES) expect(Object.hasOwn(REPLIES, t) || replies.has(t)).toBe(true);
  });
});

// The broker probe's verdict: each published message counted by how its publish ended and how often
// it came out of the queue, after Jepsen's total-queue check.
import { expect, test } from "vitest";
import { type PublishOutcome, tallyBroker } from "../src/broker/tally.ts";

const published = new Map<string, PublishOutcome>([
  ["a", "confirmed"],
  ["b", "confirmed"],
  ["c", "confirmed"],
  ["d", "unconfirmed"],
  ["e", "nacked"],
  ["f", "unconfirmed"],
]);

test("a confirmed message never delivered is lost; one delivered twice is duplicated", () => {
  const t = tallyBroker(published, ["a", "a", "c"]);
  expect(t).toMatchObject({ confirmed: 3, delivered: 2, lost: 1, duplicated: 1, unexpected: 0 });
});

test("an unconfirmed or nacked message may come out (recovered) or not (gone), and neither is lost", () => {
  const t = tallyBroker(published, ["a", "b", "c", "d", "e"]);
  expect(t).toMatchObject({ unconfirmed: 3, recovered: 2, unconfirmedGone: 1, lost: 0 });
});

test("a message the probe never published is unexpected", () => {
  expect(tallyBroker(published, ["a", "b", "c", "zz"]).unexpected).toBe(1);
});

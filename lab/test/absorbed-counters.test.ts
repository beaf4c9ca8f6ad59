// What a run's guarantees absorbed, read from the services' /metrics before and after it: differences
// taken service by service, so a service restarted in the run (its counters back at zero) neither
// cancels another's counts nor turns into a negative.
import { describe, expect, test } from "vitest";
import { absorbedSince, type ServiceCounters, serviceCounters } from "../src/audit/audit.ts";

const metrics = (service: string, startedAt: number, done: number, duplicate: number) =>
  [
    "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.",
    "# TYPE process_start_time_seconds gauge",
    `process_start_time_seconds{service="${service}"} ${startedAt}`,
    `consumer_messages_total{queue="${service}.q",outcome="done",type="a",service="${service}"} ${done}`,
    `consumer_messages_total{queue="${service}.q",outcome="duplicate",type="a",service="${service}"} ${duplicate}`,
    `consumer_messages_total{queue="${service}.q",outcome="duplicate-cache",type="a",service="${service}"} 1`,
  ].join("\n");

const read = (url: string, startedAt: number, done: number, duplicate: number): ServiceCounters =>
  serviceCounters(url, metrics(url, startedAt, done, duplicate));

describe("absorbed counters", () => {
  test("reads a service's start time and its outcomes from its metrics text", () => {
    const r = read("order", 1_796_432_938, 284, 2);
    expect(r.startedAt).toBe(1_796_432_938);
    expect(r.counts.handled).toBe(284);
    expect(r.counts.duplicatesCaughtByInbox).toBe(3);
  });

  test("a run without restarts counts each service's difference", () => {
    const before = [read("order", 100, 1_000, 0), read("points", 100, 500, 0)];
    const after = [read("order", 100, 1_600, 4), read("points", 100, 800, 0)];
    const { absorbed, lowerBounds } = absorbedSince(before, after);
    expect(absorbed.handled).toBe(900);
    expect(absorbed.duplicatesCaughtByInbox).toBe(4);
    expect(lowerBounds).toEqual([]);
  });

  test("a service restarted in the run counts from its restart, and the others keep their difference", () => {
    // The crash loop's case: inventory killed and restarted, the others untouched. Summed before
    // subtracting, inventory's lost 2,000 cancelled the others' 900 and the rate read 100%.
    const before = [
      read("order", 100, 5_000, 0),
      read("inventory", 100, 2_500, 0),
      read("points", 100, 2_500, 0),
    ];
    const after = [
      read("order", 100, 5_600, 0),
      read("inventory", 400, 500, 13),
      read("points", 100, 2_800, 0),
    ];
    const { absorbed, lowerBounds } = absorbedSince(before, after);
    expect(absorbed.handled).toBe(600 + 500 + 300);
    expect(absorbed.duplicatesCaughtByInbox).toBe(14);
    expect(lowerBounds).toEqual(["inventory"]);
  });

  test("a counter that went down marks a restart even when the start time did not change", () => {
    const { absorbed, lowerBounds } = absorbedSince(
      [read("order", 100, 900, 0)],
      [read("order", 100, 30, 0)],
    );
    expect(absorbed.handled).toBe(30);
    expect(lowerBounds).toEqual(["order"]);
  });

  test("a service that does not answer adds nothing and is named", () => {
    const { absorbed, lowerBounds } = absorbedSince(
      [read("order", 100, 10, 0), read("points", 100, 10, 0)],
      [read("order", 100, 20, 0), serviceCounters("points", "")],
    );
    expect(absorbed.handled).toBe(10);
    expect(lowerBounds).toEqual(["points"]);
  });
});

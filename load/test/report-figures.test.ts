import { describe, expect, it } from "vitest";
import {
  apiRecoveryMs,
  availabilityDuringFaults,
  availabilityPerSecond,
  backlogRecoveryMs,
  faultWindows,
} from "../src/report/derive.ts";
import { emptyStatus, type RunEvent, type TimelineSecond } from "../src/result.ts";
import { constantSegments, intendedOffsets } from "../src/schedule.ts";

/** A timeline second with `offered` iterations of which `ok` got a 2xx. */
function second(s: number, offered: number, ok: number): TimelineSecond {
  return {
    second: s,
    offered,
    started: offered,
    dropped: 0,
    completed: offered,
    status: { ...emptyStatus(), "2xx": ok, "5xx": offered - ok },
    latencyUs: null,
  };
}

const events: RunEvent[] = [
  { atMs: 2000, name: "fault injected", detail: { action: "stop-broker" } },
  { atMs: 4500, name: "fault healed" },
];

describe("report figures", () => {
  it("pair each fault injected with the next fault healed, leaving an unhealed one open to the end", () => {
    expect(faultWindows(events, 9000)).toEqual([{ fromMs: 2000, toMs: 4500, healed: true }]);
    expect(faultWindows([...events, { atMs: 6000, name: "fault injected: relay killed" }], 9000)).toEqual([
      { fromMs: 2000, toMs: 4500, healed: true },
      { fromMs: 6000, toMs: 9000, healed: false },
    ]);
  });

  it("measure availability as the 2xx share per second and over the seconds a fault touched", () => {
    const timeline = [
      second(0, 100, 100),
      second(1, 100, 100),
      second(2, 100, 50),
      second(3, 100, 0),
      second(4, 100, 50),
      second(5, 100, 100),
      second(6, 0, 0),
    ];
    expect(availabilityPerSecond(timeline).map(([, a]) => a)).toEqual([1, 1, 0.5, 0, 0.5, 1, null]);
    expect(availabilityDuringFaults(timeline, faultWindows(events, 7000))).toBeCloseTo(100 / 300);
    expect(availabilityDuringFaults(timeline, [])).toBeNull();
    // Healed at 4.5 s; second 5 is the first from which every second is >= 99% 2xx.
    expect(apiRecoveryMs(timeline, events)).toBe(500);
  });

  it("time recovery from fault healed to every series back at its pre-fault level", () => {
    const backlog = {
      name: "outbox pending",
      points: [
        { atMs: 0, value: 3 },
        { atMs: 1900, value: 3 },
        { atMs: 3000, value: 400 },
        { atMs: 4500, value: 900 },
        { atMs: 5500, value: 200 },
        { atMs: 6200, value: 2 },
      ],
    };
    const queue = {
      name: "inventory queue",
      points: [
        { atMs: 4000, value: 50 },
        { atMs: 5000, value: 0 },
      ],
    };
    expect(backlogRecoveryMs([backlog, queue], events)).toBe(1700);
    expect(backlogRecoveryMs([{ ...backlog, points: backlog.points.slice(0, 5) }], events)).toBeNull();
    expect(backlogRecoveryMs([backlog], [])).toBeNull();
  });

  it("schedule a constant rate evenly, the first iteration at the start", () => {
    const offsets = [...intendedOffsets(constantSegments(0.25, 1000))];
    expect(offsets).toEqual([0, 4, 8, ...Array.from({ length: 247 }, (_, i) => (i + 3) * 4)]);
  });
});

// The /proc readers: against this very process (real counters), and the delta's arithmetic.
import { describe, expect, test } from "vitest";
import { cpuSeconds, switchesBetween, switchSnapshot } from "../src/cpu.ts";

describe("process-tree counters from /proc", () => {
  test("a process that sleeps and wakes adds context switches to its group", async () => {
    const group = { self: [process.pid] };
    const before = switchSnapshot(group);
    // 20 sleeps of 5 ms: each one the event loop waits out in epoll_wait, unless other work of this
    // process filled it, so at least half of them must show.
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
    expect(switchesBetween(before, switchSnapshot(group)).self).toBeGreaterThanOrEqual(10);
  });

  test("a thread that ended in between drops out instead of making the count negative; a new one counts from 0", () => {
    const before = {
      postgres: new Map([
        ["10/10", 500],
        ["11/11", 40],
      ]),
    };
    const after = {
      postgres: new Map([
        ["11/11", 45],
        ["12/12", 7],
      ]),
    };
    expect(switchesBetween(before, after)).toEqual({ postgres: 12 });
  });

  test("a group whose processes are gone counts 0, not an error", () => {
    const gone = { gone: [2 ** 22 + 1] }; // above the kernel's pid_max
    expect(switchesBetween(switchSnapshot(gone), switchSnapshot(gone)).gone).toBe(0);
    expect(cpuSeconds(gone).gone).toBe(0);
  });
});

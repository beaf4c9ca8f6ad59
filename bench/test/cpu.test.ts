// The /proc readers against this very process: real counters, no fixtures.
import { describe, expect, test } from "vitest";
import { contextSwitches, cpuSeconds } from "../src/cpu.ts";

describe("process-tree counters from /proc", () => {
  test("a process that sleeps and wakes adds context switches to its group", async () => {
    const group = { self: [process.pid] };
    const before = contextSwitches(group).self ?? 0;
    // 20 sleeps of 5 ms: each one the event loop waits out in epoll_wait, unless other work of this
    // process filled it, so at least half of them must show.
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
    expect((contextSwitches(group).self ?? 0) - before).toBeGreaterThanOrEqual(10);
  });

  test("a group whose processes are gone counts 0, not an error", () => {
    const gone = { gone: [2 ** 22 + 1] }; // above the kernel's pid_max
    expect(contextSwitches(gone).gone).toBe(0);
    expect(cpuSeconds(gone).gone).toBe(0);
  });
});

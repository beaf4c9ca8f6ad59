// The /proc readers: against this very process (real counters), and the delta's arithmetic.

import { spawn } from "node:child_process";
import { describe, expect, test } from "vitest";
import { cpuSeconds, switchSnapshot, threadCountsBetween, threadSnapshot } from "../src/cpu.ts";

describe("process-tree counters from /proc", () => {
  test("a process that sleeps and wakes adds context switches to its group", async () => {
    const group = { self: [process.pid] };
    const before = switchSnapshot(group);
    // 20 sleeps of 5 ms: each one the event loop waits out in epoll_wait, unless other work of this
    // process filled it, so at least half of them must show.
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
    expect(threadCountsBetween(before, switchSnapshot(group)).self).toBeGreaterThanOrEqual(10);
  });

  test("processes sharing one core wait for it; one with a core to itself hardly waits", async () => {
    // Spinners for at most 10 s: two pinned to core 0 (whichever runs, the other waits), one to core 1.
    const spin = "const end = Date.now() + 10000; while (Date.now() < end) {}";
    const on = (core: string) =>
      spawn("taskset", ["-c", core, process.execPath, "-e", spin], { stdio: "ignore" });
    const kids = [on("0"), on("0"), on("1")];
    try {
      const [a, b, c] = kids.map((k) => k.pid as number);
      const groups = { shared: [a as number, b as number], alone: [c as number] };
      const before = threadSnapshot(groups, "runQueueWaitNs");
      const waited = () => threadCountsBetween(before, threadSnapshot(groups, "runQueueWaitNs"));
      await expect.poll(() => waited().shared, { timeout: 8_000, interval: 100 }).toBeGreaterThan(300e6);
      expect(waited().alone).toBeLessThan((waited().shared ?? 0) / 3);
    } finally {
      for (const k of kids) k.kill("SIGKILL");
    }
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
    expect(threadCountsBetween(before, after)).toEqual({ postgres: 12 });
  });

  test("a group whose processes are gone counts 0, not an error", () => {
    const gone = { gone: [2 ** 22 + 1] }; // above the kernel's pid_max
    expect(threadCountsBetween(switchSnapshot(gone), switchSnapshot(gone)).gone).toBe(0);
    expect(cpuSeconds(gone).gone).toBe(0);
  });
});

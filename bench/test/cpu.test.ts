// The /proc readers: against this very process (real counters), and the delta's arithmetic.

import { spawn } from "node:child_process";
import { eventually, observeFor } from "@orderflow/testkit/eventually.ts";
import { describe, expect, test } from "vitest";
import { cpuDelta, cpuSeconds, switchSnapshot, threadCountsBetween, threadSnapshot } from "../src/cpu.ts";

describe("process-tree counters from /proc", () => {
  test("a process that sleeps and wakes adds context switches to its group", async () => {
    const group = { self: [process.pid] };
    const before = switchSnapshot(group);
    // 20 sleeps of 5 ms: each one the event loop waits out in epoll_wait, unless other work of this
    // process filled it, so at least half of them must show.
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
    expect(threadCountsBetween(before, switchSnapshot(group)).self).toBeGreaterThanOrEqual(10);
  });

  test("a busy process's CPU time and run-queue wait add up to the time elapsed; two sharing one core wait at least that long together", async () => {
    // Three spinners, never asleep: two pinned to core 0, one to core 1. Whatever else the machine runs,
    // each one is at every moment either on a core (CPU time) or ready and waiting for one (run-queue
    // wait), so over a window the two add up to its length. The two on core 0 can run no longer than the
    // window together, so together they wait at least as long as it lasted: whichever runs, the other
    // waits. Other load on the machine only moves time from running to waiting, never out of the sum.
    const spin = "const end = Date.now() + 60000; while (Date.now() < end) {}";
    const on = (core: string) =>
      spawn("taskset", ["-c", core, process.execPath, "-e", spin], { stdio: "ignore" });
    const kids = [on("0"), on("0"), on("1")];
    try {
      const [a, b, c] = kids.map((k) => k.pid as number) as [number, number, number];
      const each = { a: [a], b: [b], c: [c] };
      // Spinning, past node's start-up (whose threads sleep and wake).
      await eventually(
        "the three spinners running",
        () => Object.values(cpuSeconds(each)).every((s) => s > 0.2),
        { timeoutMs: 30_000 },
      );
      const read = () => {
        const t0 = performance.now();
        const cpu = cpuSeconds(each);
        const wait = threadSnapshot(each, "runQueueWaitNs");
        return { cpu, wait, t0, t1: performance.now() };
      };
      const before = read();
      await observeFor(2_000);
      const after = read();
      // The reads themselves may wait for a core: the window lies between these two bounds.
      const shortest = (after.t0 - before.t1) / 1000;
      const longest = (after.t1 - before.t0) / 1000;
      // CPU time comes in clock ticks and a wait is booked when it ends: a slack of 0.25 s and 15 %.
      const slack = 0.25 + 0.15 * longest;
      const ran = cpuDelta(before.cpu, after.cpu);
      const waited = Object.fromEntries(
        Object.entries(threadCountsBetween(before.wait, after.wait)).map(([k, ns]) => [k, ns / 1e9]),
      );
      const detail = JSON.stringify({ shortest, longest, ran, waited });
      for (const k of ["a", "b", "c"]) {
        const total = (ran[k] ?? 0) + (waited[k] ?? 0);
        expect(total, detail).toBeGreaterThan(shortest - slack);
        expect(total, detail).toBeLessThan(longest + slack);
      }
      expect((ran.a ?? 0) + (ran.b ?? 0), detail).toBeLessThan(longest + slack);
      expect((waited.a ?? 0) + (waited.b ?? 0), detail).toBeGreaterThan(shortest - slack);
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

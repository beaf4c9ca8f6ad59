// CPU seconds spent by process trees (a service is tsx -> node; PostgreSQL is a postmaster and its
// backends), read from /proc. utime + stime of every live process in the tree, plus cutime + cstime
// (children that already exited and were reaped: short-lived PostgreSQL backends).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { SectionContext } from "./section.ts";

let clockTicks: number | undefined;
const ticks = () => {
  clockTicks ??= Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  return clockTicks;
};

interface ProcStat {
  ppid: number;
  /** utime + stime + cutime + cstime. */
  cpuTicks: number;
  /** utime + stime: this process alone, without its reaped children. */
  selfTicks: number;
}

function readAll(): Map<number, ProcStat> {
  const out = new Map<number, ProcStat>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const s = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      // The command name is in parentheses and may hold spaces: the fields start after the last ')'.
      const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
      const n = (i: number) => Number(f[i] ?? 0);
      out.set(Number(name), {
        ppid: n(1),
        cpuTicks: n(11) + n(12) + n(13) + n(14),
        selfTicks: n(11) + n(12),
      });
    } catch {
      // the process exited while we listed it
    }
  }
  return out;
}

/**
 * CPU seconds of each named group of process-tree roots, now; a process reached from two roots of a
 * group counts once. Groups named in `selfOnly` count their roots alone (the supervisor, whose tree is
 * every app, which other groups count).
 */
export function cpuSeconds(
  groups: Record<string, number[]>,
  selfOnly: readonly string[] = [],
): Record<string, number> {
  const all = readAll();
  const children = childrenOf(all);
  const selfTicks = (roots: number[]) =>
    [...new Set(roots)].reduce((s, r) => s + (all.get(r)?.selfTicks ?? 0), 0);
  const treeTicks = (roots: number[]) =>
    treePids(all, children, roots).reduce((s, pid) => s + (all.get(pid)?.cpuTicks ?? 0), 0);
  return Object.fromEntries(
    Object.entries(groups).map(([k, roots]) => [
      k,
      (selfOnly.includes(k) ? selfTicks(roots) : treeTicks(roots)) / ticks(),
    ]),
  );
}

function childrenOf(all: Map<number, ProcStat>): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const [pid, p] of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), pid]);
  return children;
}

/** Every live process in the trees under `roots`, each once. */
function treePids(all: Map<number, ProcStat>, children: Map<number, number[]>, roots: number[]): number[] {
  const seen = new Set<number>();
  const stack = [...roots];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    if (seen.has(pid) || !all.has(pid)) continue;
    seen.add(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return [...seen];
}

/** What one thread's counter reads from its /proc/PID/task/TID directory. */
const THREAD_COUNTERS = {
  /** Voluntary + involuntary context switches so far. */
  switches: (dir: string) => {
    let n = 0;
    const status = fs.readFileSync(`${dir}/status`, "utf8");
    for (const m of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)) n += Number(m[1]);
    return n;
  },
  /** Nanoseconds spent runnable but waiting for a core so far (schedstat's second field). */
  runQueueWaitNs: (dir: string) => Number(fs.readFileSync(`${dir}/schedstat`, "utf8").split(" ")[1]),
} as const;

type ThreadCounter = keyof typeof THREAD_COUNTERS;

/** A counter of every thread of a process so far, by "pid/tid". */
function readThreads(pid: number, counter: ThreadCounter, into: Map<string, number>): void {
  let tasks: string[] = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return; // the process exited
  }
  for (const tid of tasks) {
    try {
      const n = THREAD_COUNTERS[counter](`/proc/${pid}/task/${tid}`);
      if (Number.isFinite(n)) into.set(`${pid}/${tid}`, n);
    } catch {
      // the thread ended while we listed it
    }
  }
}

/** Each group's threads (every process in its trees) with one of their counters so far. */
export type ThreadSnapshot = Record<string, Map<string, number>>;

export function threadSnapshot(groups: Record<string, number[]>, counter: ThreadCounter): ThreadSnapshot {
  const all = readAll();
  const children = childrenOf(all);
  return Object.fromEntries(
    Object.entries(groups).map(([k, roots]) => {
      const threads = new Map<string, number>();
      for (const pid of treePids(all, children, roots)) readThreads(pid, counter, threads);
      return [k, threads];
    }),
  );
}

/** Each group's context switches so far: each is a sleep and a wake-up, or a preemption. */
export const switchSnapshot = (groups: Record<string, number[]>) => threadSnapshot(groups, "switches");

/**
 * A counter's growth per group between two snapshots. Context switches: each is a sleep and a wake-up
 * (voluntary: a wait on a socket, a lock, a timer) or a preemption (involuntary). Run-queue wait: time a
 * thread was ready to run with no core free. A thread born in between counts from 0; one that ended in
 * between (a PostgreSQL backend that exited) takes its count with it, so the figure can only under-count.
 */
export function threadCountsBetween(before: ThreadSnapshot, after: ThreadSnapshot): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after).map(([k, threads]) => {
      let sum = 0;
      for (const [id, n] of threads) sum += n - (before[k]?.get(id) ?? 0);
      return [k, sum];
    }),
  );
}

/** The parent of a process (0 when it is gone). */
export function parentPid(pid: number): number {
  return readAll().get(pid)?.ppid ?? 0;
}

export function cpuDelta(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]));
}

/** The postmaster's PID (first line of postmaster.pid): the root of every PostgreSQL process. */
export function postgresRoots(ctx: Pick<SectionContext, "stack">): number[] {
  try {
    const first = fs
      .readFileSync(path.join(ctx.stack.layout.postgres.dataDir, "postmaster.pid"), "utf8")
      .split("\n")[0];
    const pid = Number(first);
    return Number.isInteger(pid) && pid > 0 ? [pid] : [];
  } catch {
    return [];
  }
}

/**
 * The whole machine's CPU seconds from /proc/stat's first line, now: `busy` is everything but idle and
 * iowait (every process, the kernel's own threads and interrupts, whoever runs them), `total` adds those.
 */
export function machineCpuSeconds(): { busy: number; total: number } {
  const first = fs.readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  const f = first.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = f.reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  return { busy: (total - idle) / ticks(), total: total / ticks() };
}

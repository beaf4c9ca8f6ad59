// Resident memory of a process from /proc/<pid>/status (VmRSS), checked against the process's start time
// so that a PID reused by a restarted app is not taken for the same process.
import fs from "node:fs";

/** The process's start time (clock ticks since boot, /proc/<pid>/stat field 22), undefined when gone. */
export function startTicks(pid: number): number | undefined {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const v = Number(s.slice(s.lastIndexOf(")") + 2).split(" ")[19]);
    return Number.isFinite(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** VmRSS in MiB, or null when the process is gone or is no longer the one that started at `started`. */
export function rssMb(pid: number, started: number | undefined): number | null {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    if (!m || startTicks(pid) !== started) return null;
    return Number(m[1]) / 1024;
  } catch {
    return null;
  }
}

// The machine a run came from: the table is meaningless without it.
import fs from "node:fs";
import os from "node:os";

export interface Machine {
  cpuModel: string;
  cores: number;
  ramGiB: number;
  node: string;
  date: string;
  /** 1-minute load average when the run started and ended: other work on a shared box shows here. */
  loadAverage: { start: number; end: number };
}

export function describeMachine(loadAtStart: number): Machine {
  let cpuModel = os.cpus()[0]?.model ?? "unknown";
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync("/proc/cpuinfo", "utf8"));
    if (m?.[1]) cpuModel = m[1].trim();
  } catch {
    // not Linux: os.cpus() is good enough
  }
  return {
    cpuModel,
    cores: os.availableParallelism?.() ?? os.cpus().length,
    ramGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    date: new Date().toISOString(),
    loadAverage: { start: loadAtStart, end: os.loadavg()[0] ?? Number.NaN },
  };
}

// Figures the report derives from a run: fault windows, availability, recovery times. Pure functions.
import type { RunEvent, TimelineSecond } from "../result.ts";

/** A measured series from outside the generator: outbox backlog, a queue's depth. */
export interface ExtraSeries {
  name: string;
  /** Series with the same chart title are drawn together; default "Backlog and queue depths". */
  chart?: string;
  unit?: string;
  /** atMs: milliseconds since the run started, on the run's own clock. */
  points: Array<{ atMs: number; value: number }>;
}

/** The audit's verdict; its full shape belongs to the audit, the report reads these few fields. */
export interface AuditVerdict {
  passed?: boolean;
  duplicateRate?: number;
  recoveryTimeMs?: number;
  /** The damage in the scenario's own terms (a pitfall's and its pair's). */
  damage?: Record<string, number>;
  /** A broker probe's counts (the partition scenarios'): confirmed, lost, duplicated, unexpected... */
  broker?: Record<string, number>;
  [field: string]: unknown;
}

export interface FaultWindow {
  fromMs: number;
  toMs: number;
  /** False when the run ended before a "fault healed" event. */
  healed: boolean;
}

const isInjected = (e: RunEvent) => e.name.startsWith("fault injected");
const isHealed = (e: RunEvent) => e.name.startsWith("fault healed");

/** Each "fault injected" up to the next "fault healed" (names may carry a suffix: "fault injected: kill -9"). */
export function faultWindows(events: readonly RunEvent[], endMs: number): FaultWindow[] {
  const windows: FaultWindow[] = [];
  let open: number | null = null;
  for (const e of [...events].sort((a, b) => a.atMs - b.atMs)) {
    if (isInjected(e) && open === null) open = e.atMs;
    else if (isHealed(e) && open !== null) {
      windows.push({ fromMs: open, toMs: e.atMs, healed: true });
      open = null;
    }
  }
  if (open !== null) windows.push({ fromMs: open, toMs: endMs, healed: false });
  return windows;
}

/**
 * Share of the iterations meant to start in each second that got a 2xx. Dropped iterations count as
 * unavailable: the API was too slow to take them.
 */
export function availabilityPerSecond(timeline: readonly TimelineSecond[]): Array<[number, number | null]> {
  return timeline.map((s) => [s.second, s.offered === 0 ? null : s.status["2xx"] / s.offered]);
}

/** 2xx share over the seconds that overlap a fault window; null without a fault. */
export function availabilityDuringFaults(
  timeline: readonly TimelineSecond[],
  windows: readonly FaultWindow[],
): number | null {
  let ok = 0;
  let offered = 0;
  for (const s of timeline) {
    const from = s.second * 1000;
    const to = from + 1000;
    if (!windows.some((w) => w.fromMs < to && w.toMs >= from)) continue;
    ok += s.status["2xx"];
    offered += s.offered;
  }
  return offered === 0 ? null : ok / offered;
}

function lastHealMs(events: readonly RunEvent[]): number | null {
  const heals = events.filter(isHealed).map((e) => e.atMs);
  return heals.length === 0 ? null : Math.max(...heals);
}

/**
 * Fault healed -> backlog drained: from the last "fault healed" to the first moment every series is
 * back at or below its level just before the first fault (0 if it had no sample before it).
 * null when there is no heal, no series, or a series never drains within the run.
 */
export function backlogRecoveryMs(
  series: readonly ExtraSeries[],
  events: readonly RunEvent[],
): number | null {
  const healMs = lastHealMs(events);
  if (healMs === null || series.length === 0) return null;
  const firstFault = Math.min(...events.filter(isInjected).map((e) => e.atMs), healMs);
  let recoveredAt = healMs;
  for (const s of series) {
    const before = s.points.filter((p) => p.atMs <= firstFault);
    const baseline = Math.max(0, before.at(-1)?.value ?? 0);
    const drained = s.points.find((p) => p.atMs >= healMs && p.value <= baseline);
    if (!drained) return null;
    recoveredAt = Math.max(recoveredAt, drained.atMs);
  }
  return recoveredAt - healMs;
}

/** Fault healed -> the first second from which every second has at least `share` 2xx. */
export function apiRecoveryMs(
  timeline: readonly TimelineSecond[],
  events: readonly RunEvent[],
  share = 0.99,
): number | null {
  const healMs = lastHealMs(events);
  if (healMs === null) return null;
  const avail = availabilityPerSecond(timeline);
  const healSecond = Math.floor(healMs / 1000);
  for (let i = healSecond; i < avail.length; i++) {
    const rest = avail.slice(i).filter(([, a]) => a !== null);
    if (rest.length > 0 && rest.every(([, a]) => (a as number) >= share)) {
      return Math.max(0, i * 1000 - healMs);
    }
  }
  return null;
}
